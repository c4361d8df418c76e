import type { AgentOptions } from '../agent-doc.ts';
import { optionsTable } from '../option-layers.ts';
import { directiveOf, type Frame, type StageHost } from './agent-run.ts';

/** `# After All`: its value is the run's after_all; a redo directive asks for a new run. */
export function runAfterAll(
  host: StageHost,
  frame: Frame,
  run: { inputs: unknown[] | undefined; outputs: unknown[] | undefined; beforeAll: unknown; options: AgentOptions },
): { afterAll: unknown; redoRequested: boolean } {
  const script = frame.doc.afterAll;
  if (!script) return { afterAll: undefined, redoRequested: false };
  const afterAll = host.runStage(frame, 'AfterAll', script, {
    inputs: run.inputs,
    outputs: run.outputs,
    before_all: run.beforeAll,
    options: optionsTable(run.options),
  });
  const d = directiveOf(afterAll, 'AfterAll', frame);
  return { afterAll: afterAll ?? undefined, redoRequested: d?.kind === 'Redo' };
}
