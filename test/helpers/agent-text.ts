/**
 * Runs one agent given as `.aip` text in a purely virtual workspace, for tests of one lifecycle stage:
 * `stage('Data', 'return 1')` builds the section, so each test shows only the stages it is about.
 */
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { AgentRunError, Simulator, type SimulatorOptions } from '../../src/runtime/simulator.ts';

const WS = '/virtual/agent-text-ws';

/** A `# <Title>` section with a Lua block. */
export function stage(title: 'Before All' | 'Data' | 'Output' | 'After All', lua: string): string {
  return `# ${title}\n\n\`\`\`lua\n${lua}\n\`\`\`\n\n`;
}

export function runAgentText(text: string, opts: Partial<SimulatorOptions> & { files?: Record<string, string>; inputs?: unknown[] } = {}) {
  const { files, inputs, ...simOpts } = opts;
  const vfs = createOverlayVfs(WS, { files: { 'a.aip': text, ...files } });
  const sim = new Simulator({ workspaceDir: WS, vfs, ...simOpts });
  const outcome = sim.run({ name: 'a.aip', baseDir: WS, inputs });
  return { outcome, sim };
}

/** The message of the AgentRunError a run raises. */
export function runFailure(text: string, opts: Parameters<typeof runAgentText>[1] = {}): string {
  try {
    runAgentText(text, opts);
  } catch (err) {
    if (err instanceof AgentRunError) return err.message;
    throw err;
  }
  throw new Error('expected the run to fail');
}
