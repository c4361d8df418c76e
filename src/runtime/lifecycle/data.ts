import type { AgentOptions } from '../agent-doc.ts';
import { mergeOptions, optionsTable } from '../option-layers.ts';
import { isPlainObject } from '../../engine/values.ts';
import { parseStageOptions } from './flow-response-options.ts';
import { directiveOf, fail, redoMisplaced, type Frame, type StageHost } from './agent-run.ts';

export type DataResult =
  | { kind: 'skip' }
  | { kind: 'continue'; input: unknown; data: unknown; attachments: unknown[]; options: AgentOptions };

/** `# Data` of one task: may skip the task, or replace its input, data, attachments and options. */
export function runData(host: StageHost, frame: Frame, num: number, input: unknown, beforeAll: unknown, options: AgentOptions): DataResult {
  const script = frame.doc.data;
  if (!script) return { kind: 'continue', input, data: null, attachments: [], options };
  const ret = host.runStage(frame, 'Data', script, { input, before_all: beforeAll, options: optionsTable(options) }, num);
  const d = directiveOf(ret, 'Data', frame);
  if (d?.kind === 'Skip') return { kind: 'skip' };
  if (d?.kind === 'Redo') throw redoMisplaced(frame, 'Data');
  if (d?.kind === 'BeforeAllResponse') throw fail(frame, "Aipack Custom 'BeforeAllResponse' is not supported at the Data stage", 'Data');
  if (d?.kind !== 'DataResponse') return { kind: 'continue', input, data: ret ?? null, attachments: [], options };
  const r = parseDataResponse(d.data, frame);
  return {
    kind: 'continue',
    input: r.input !== undefined ? r.input : input,
    data: r.data,
    attachments: r.attachments,
    options: r.options ? mergeOptions(options, r.options) : options,
  };
}

function parseDataResponse(data: unknown, frame: Frame): { input?: unknown; data: unknown; attachments: unknown[]; options?: AgentOptions } {
  if (!isPlainObject(data)) return { data: null, attachments: [] };
  for (const key of Object.keys(data)) {
    if (!['input', 'data', 'attachments', 'options'].includes(key)) {
      throw fail(frame, `aip.flow.data_response(arg) - 'arg' can only have \`.input\`, \`.data\`, \`.attachments\`, \`.options\`). But also contained: ${key}`, 'Data');
    }
  }
  const att = data.attachments;
  const attachments = att === undefined || att === null ? [] : Array.isArray(att) ? att : [att];
  const options = data.options === undefined || data.options === null ? undefined : parseStageOptions(data.options, frame, 'Data', 'data_response');
  return { input: data.input === null ? undefined : data.input, data: data.data ?? null, attachments, options };
}
