/**
 * The record benches' workspace: pro@coder with 20 sub-agents (each reads and returns the params) at `pre`,
 * `pre_task` and `post_task` over two tasks (34 sub-agent calls a run), with or without `record = true`.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';

export const AGENTS = 20;
const STAGES = ['pre', 'pre_task', 'post_task'];

export function recordBenchWorkspace(record: boolean): string {
  const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-record-bench-'));
  const put = (rel: string, text: string) => {
    fs.mkdirSync(nodePath.dirname(nodePath.join(ws, rel)), { recursive: true });
    fs.writeFileSync(nodePath.join(ws, rel), text);
  };
  put('.aipack/config.toml', '[options]\nmodel = "m"\n');
  put('src/a.ts', 'export const a = 1;\n');
  put('src/b.ts', 'export const b = 2;\n');
  const entries: string[] = [];
  for (let i = 1; i <= AGENTS; i++) {
    const name = `sa/a${String(i).padStart(3, '0')}.aip`;
    put(name, '# Output\n\n```lua\nlocal p = input.coder_params\np.calls = (p.calls or 0) + 1\nreturn { coder_params = p }\n```\n');
    entries.push(`  { name = "${name}", stages = ["${STAGES[i % STAGES.length]}"] },`);
  }
  put('.aipack/.prompt/pro@coder/coder-prompt.md', [
    '```toml', '#!meta', ...(record ? ['record = true'] : []), 'working_globs = ["src/*.ts"]', 'write_mode = false',
    'sub_agents = [', ...entries, ']', '```', '', 'Explain the file.', '', '====', '',
  ].join('\n'));
  return ws;
}
