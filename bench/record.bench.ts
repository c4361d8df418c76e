/**
 * What recording (`record = true`) adds to a run: pro@coder with 20 sub-agents (each reads and returns the params)
 * at `pre`, `pre_task` and `post_task` over two tasks, run in one process with and without `record = true`,
 * alternating (ABBA), CPU per run (medians). `npx tsx bench/record.bench.ts [--rounds N] [--engine fengari|lua54]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { loadEngine, type EngineName } from '../src/engine/index.ts';
import { ScriptedAi } from '../src/runtime/ai.ts';
import { REPO_PACK } from '../src/runtime/packs.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import { printTable } from './table.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('--rounds') ?? 15);
const ENGINE = (arg('--engine') ?? 'fengari') as EngineName;
const AGENTS = 20;
const STAGES = ['pre', 'pre_task', 'post_task'];

function workspace(record: boolean): string {
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

function runOnce(ws: string): number {
  const sim = new Simulator({
    workspaceDir: ws,
    engine: ENGINE,
    packs: [REPO_PACK],
    ai: ScriptedAi.fromList([{ agent: 'pro@coder', content: 'It is fine.', reusable: true }]),
  });
  const u = process.cpuUsage();
  sim.run({ name: 'pro@coder' });
  const d = process.cpuUsage(u);
  return (d.user + d.system) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await loadEngine(ENGINE);
const plain = workspace(false);
const recorded = workspace(true);
for (let i = 0; i < 3; i++) runOnce(plain), runOnce(recorded); // warm-up: JIT, pooled states, caches
const a: number[] = [];
const b: number[] = [];
// the order alternates (ABBA): a run pays for the garbage the run before it left, whichever it was
for (let i = 0; i < ROUNDS; i++) {
  if (i % 2 === 0) {
    a.push(runOnce(plain));
    b.push(runOnce(recorded));
  } else {
    b.push(runOnce(recorded));
    a.push(runOnce(plain));
  }
}
const ma = median(a);
const mb = median(b);
console.log(`${AGENTS} sub-agents over 2 tasks (${AGENTS} calls a run), ${ENGINE}, ${ROUNDS} rounds, CPU ms per run (median):`);
printTable(['run', 'CPU ms', 'vs without'], [
  ['without record', ma.toFixed(1), '1.00'],
  ['record = true', mb.toFixed(1), (mb / ma).toFixed(3)],
]);
