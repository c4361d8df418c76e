import { isPlainObject } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';

const OPTION_KEYS = ['model', 'model_aliases', 'input_concurrency', 'temperature', 'top_p', 'allow_run_on_task_fail'];

export const agent: AipNamespaceFactory = (env) => ({
  run: (name: unknown, options?: unknown) => env.runAgent(name, options),
  extract_options: (value: unknown) => {
    // any table gives a table; a list or an empty table arrives as a JS array and has none of the keys
    if (Array.isArray(value)) return {};
    if (!isPlainObject(value)) return undefined;
    const out: Record<string, unknown> = {};
    for (const key of OPTION_KEYS) if (value[key] !== undefined && value[key] !== null) out[key] = value[key];
    return out;
  },
});
