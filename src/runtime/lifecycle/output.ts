import type { AgentOptions } from '../agent-doc.ts';
import type { AiAnswer } from '../ai.ts';
import { optionsTable } from '../option-layers.ts';
import { directiveOf, fail, redoMisplaced, type Frame, type StageHost } from './agent-run.ts';

/** `# Output` of one task; without it the task's output is the AI answer's content. */
export function runOutput(
  host: StageHost,
  frame: Frame,
  num: number,
  task: { input: unknown; data: unknown; beforeAll: unknown; options: AgentOptions },
  aiResponse: AiAnswer | undefined,
): unknown {
  const script = frame.doc.output;
  if (!script) return aiResponse?.content ?? null;
  const ret = host.runStage(frame, 'Output', script, {
    input: task.input,
    data: task.data,
    before_all: task.beforeAll,
    ai_response: aiResponse,
    options: optionsTable(task.options),
  }, num);
  const d = directiveOf(ret, 'Output', frame);
  if (d && d.kind !== 'Skip') {
    if (d.kind === 'Redo') throw redoMisplaced(frame, 'Output');
    throw fail(frame, `Aipack custom '${d.kind}' not supported at the Output stage`, 'Output');
  }
  // an Output-stage skip is not a skip: since 0.8.17 the directive table itself is the output; before, the
  // task output was null (docs/aipack.md section 2)
  if (d && d.kind === 'Skip' && !host.since('0.8.17')) return null;
  return ret ?? null;
}
