import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { Simulator, type SimulatorOptions } from '../../src/runtime/simulator.ts';

const WS = '/virtual/lua-snippet-ws';

/** Runs `code` as the After All of a one-file agent in a purely virtual workspace; returns its value and the sim. */
export function runLua(code: string, opts: Partial<SimulatorOptions> & { files?: Record<string, string | Uint8Array> } = {}) {
  const vfs = createOverlayVfs(WS, { files: { 'snippet.aip': `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`, ...opts.files } });
  const sim = new Simulator({ workspaceDir: WS, vfs, ...opts });
  const outcome = sim.run({ name: 'snippet.aip', baseDir: WS });
  return { value: outcome.afterAll, sim };
}
