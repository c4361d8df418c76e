/** The failure messages of pack/SUB_AGENTS.md sections 3 and 4, filled from the templates in schemas.ts. */
import { CODER_PARAM_KEYS, MAX_STEPS, MESSAGE_TEMPLATES as M, MIN_AIPACK_VERSION, type LaxMessage, type SubAgentStage } from './schemas.ts';
import { fill } from './check.ts';
import { isGiven } from './lua-values.ts';

/** An error's text: an Error's message, a table's string `message` field, else the value as a string. */
function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && !Array.isArray(error)) {
    const m = (error as Record<string, unknown>).message;
    if (typeof m === 'string') return m;
  }
  return String(error);
}

export const messages = {
  /** `Sub-agent [<name>] failed: <error_msg>` (+ `\nDetails: <error_details>`); no error_msg: `no error_msg given`. */
  failed(name: string, errorMsg?: string | null, details?: string | null, form: 'stage' | 'event' = 'stage'): string {
    const head = fill(M.failed, { name, error: isGiven(errorMsg) ? errorMsg : form === 'event' ? M.unknownError : M.noErrorMsg });
    return isGiven(details) ? head + fill(M.failedDetails, { details }) : head;
  },
  /** event form, upstream's wording: `Sub-agent [<name>] failed: invalid response type, expected table or nil` */
  notTableEvent(name: string): string {
    return fill(M.notTableEvent, { name });
  },
  /** `Sub-agent [<name>] returned an invalid response: <what is wrong>` */
  invalid(name: string, what: string): string {
    return fill(M.invalid, { name, what });
  },
  /** `Sub-agent [<name>] failed: <error raised by aip.agent.run>` */
  raised(name: string, error: unknown): string {
    return fill(M.raised, { name, error: errorText(error) });
  },
  /** `Sub-agent pipeline exceeded 100 steps in stage <stage>` */
  stepCap(stage: SubAgentStage | string): string {
    return fill(M.stepCap, { max: MAX_STEPS, stage });
  },
  /** `Sub-agent [<name>] not found: <path> does not exist (...)`: the agent file a `sub_agents` name points at */
  notFound(name: string, path: string): string {
    return fill(M.notFound, { name, path });
  },
  /** `<label>: unknown key '<key>' (kept, ...)` */
  unknownEntryKey(label: string, key: string): string {
    return fill(M.unknownEntryKey, { label, key });
  },
  /** `Sub-agent [<name>] returned coder_params without <keys>: ...` */
  droppedParams(name: string, keys: string[]): string {
    return fill(M.droppedParams, { name, keys: keys.join(', ') });
  },
  /** One warning per key of `params` this pack does not act on, sorted by key (as the pack prints them). */
  paramWarnings(params: Record<string, unknown>): string[] {
    const supported: readonly string[] = CODER_PARAM_KEYS.supported;
    const notImplemented: Record<string, string> = CODER_PARAM_KEYS.not_implemented;
    const has = (k: string) => Object.prototype.hasOwnProperty.call(notImplemented, k);
    // an upstream feature the user turned off (false, or enabled = false) loses nothing here
    const off = (v: unknown) =>
      v === false || (typeof v === 'object' && v !== null && !Array.isArray(v) && (v as Record<string, unknown>).enabled === false);
    return Object.keys(params)
      .filter((k) => params[k] !== undefined && !supported.includes(k) && !(has(k) && off(params[k])))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) =>
        has(key)
          ? fill(M.notImplementedParam, { key, why: notImplemented[key]! })
          : fill(M.unknownParam, { key }),
      );
  },
  /** A lax form upstream accepts (section 7): the warning naming the entry and the stricter form. */
  lax(kind: LaxMessage, values: Record<string, string>): string {
    return fill(M[kind], values);
  },
  /** `Sub-agents require AIPack 0.8.15 or above (current: <version>)` */
  version(current: string): string {
    return fill(M.version, { min: MIN_AIPACK_VERSION, current });
  },
};
