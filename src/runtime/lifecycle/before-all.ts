import type { AgentOptions } from '../agent-doc.ts';
import { mergeOptions, optionsTable } from '../option-layers.ts';
import { isPlainObject, luaTypeName } from '../../engine/values.ts';
import { parseStageOptions } from './flow-response-options.ts';
import { directiveOf, fail, type Frame, type StageHost } from './agent-run.ts';

export type BeforeAllResult =
  | { kind: 'skip'; reason: string }
  | { kind: 'redo' }
  | { kind: 'continue'; inputs: unknown[] | undefined; beforeAll: unknown; options: AgentOptions };

/** `# Before All` (docs/aipack.md section 2): may skip, redo, or replace the inputs, options and before_all value. */
export function runBeforeAll(host: StageHost, frame: Frame, inputs: unknown[] | undefined, options: AgentOptions): BeforeAllResult {
  const script = frame.doc.beforeAll;
  if (!script) return { kind: 'continue', inputs, beforeAll: null, options };
  const ret = host.runStage(frame, 'BeforeAll', script, { inputs, options: optionsTable(options) });
  const d = directiveOf(ret, 'BeforeAll', frame);
  if (d?.kind === 'Skip') return { kind: 'skip', reason: isPlainObject(d.data) && typeof d.data.reason === 'string' ? d.data.reason : '' };
  if (d?.kind === 'Redo') return { kind: 'redo' };
  if (d?.kind === 'DataResponse') throw fail(frame, "Aipack custom 'DataResponse' not supported at the Before All stage", 'BeforeAll');
  if (d?.kind !== 'BeforeAllResponse') return { kind: 'continue', inputs, beforeAll: ret ?? null, options };
  const r = parseBeforeAllResponse(d.data, frame);
  return {
    kind: 'continue',
    inputs: r.inputs ?? inputs,
    beforeAll: r.beforeAll,
    options: r.options ? mergeOptions(options, r.options) : options,
  };
}

function parseBeforeAllResponse(data: unknown, frame: Frame): { inputs?: unknown[]; beforeAll: unknown; options?: AgentOptions } {
  if (!isPlainObject(data)) return { beforeAll: null };
  for (const key of Object.keys(data)) {
    if (!['inputs', 'before_all', 'options'].includes(key)) {
      throw fail(frame, `aip.flow.before_all_response(arg) - 'arg' can only have \`.inputs\`, \`.options\`, \`.before_all\`). But also contained: ${key}`, 'BeforeAll');
    }
  }
  let inputs: unknown[] | undefined;
  if (Array.isArray(data.inputs)) inputs = data.inputs;
  else if (isPlainObject(data.inputs) && Object.keys(data.inputs).length === 0) inputs = [];
  else if (data.inputs !== undefined && data.inputs !== null) {
    throw fail(frame, `aip.flow.before_all_response(arg) - 'arg.inputs' must be a list, got ${luaTypeName(data.inputs)}`, 'BeforeAll');
  }
  const options = data.options === undefined || data.options === null ? undefined : parseStageOptions(data.options, frame, 'BeforeAll', 'before_all_response');
  return { inputs, beforeAll: data.before_all ?? null, options };
}
