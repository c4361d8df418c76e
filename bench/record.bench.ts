/**
 * What recording (`record = true`) adds to a run: pro@coder with 20 sub-agents (each reads and returns the params)
 * at `pre`, `pre_task` and `post_task` over two tasks (34 sub-agent calls a run), run in one process with and
 * without `record = true`, alternating (ABBA), CPU per run (medians).
 * `npx tsx bench/record.bench.ts [--rounds N] [--engine fengari|lua54]`.
 *
 * A run's CPU varies twofold from run to run with the garbage earlier runs left (a major collection lands in one
 * run or another): the heap is collected before each timed run (not timed), and a second workspace without
 * `record = true` is run as a control, whose ratio to the first shows what the method cannot tell apart.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import fs from 'node:fs';
import { loadEngine, type EngineName } from '../src/engine/index.ts';
import { ScriptedAi } from '../src/runtime/ai.ts';
import { REPO_PACK } from '../src/runtime/packs.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import { AGENTS, recordBenchWorkspace as workspace } from './record-workspace.ts';
import { printTable } from './table.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('--rounds') ?? 25);
const ENGINE = (arg('--engine') ?? 'fengari') as EngineName;
/**
 * CPU time of this thread (Linux: the scheduler's nanoseconds), not the process's: V8's compiler and collector
 * threads work on their own schedule, and their CPU, counted by process.cpuUsage, landed in whichever run was timed.
 */
function threadCpuMs(): number {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

function runOnce(ws: string): number {
  const sim = new Simulator({
    workspaceDir: ws,
    engine: ENGINE,
    packs: [REPO_PACK],
    ai: ScriptedAi.fromList([{ agent: 'pro@coder', content: 'It is fine.', reusable: true }]),
  });
  collect();
  const before = threadCpuMs();
  sim.run({ name: 'pro@coder' });
  return threadCpuMs() - before;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await loadEngine(ENGINE);
const plain = workspace(false);
const control = workspace(false);
const recorded = workspace(true);
for (let i = 0; i < 8; i++) runOnce(plain), runOnce(control), runOnce(recorded); // warm-up: JIT, pooled states, caches
const a: number[] = [];
const c: number[] = [];
const b: number[] = [];
// the order turns each round, so that each workspace follows each other one as often
const orders = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0], [0, 2, 1], [1, 0, 2]];
for (let i = 0; i < ROUNDS; i++) {
  for (const which of orders[i % orders.length]!) {
    if (which === 0) a.push(runOnce(plain));
    else if (which === 1) c.push(runOnce(control));
    else b.push(runOnce(recorded));
  }
}
const ma = median(a);
const mb = median(b);
const mc = median(c);
// the runs of a round ran under the same load: the median of their ratios is the steadier figure
const ratios = (xs: number[]) => a.map((x, i) => xs[i]! / x).sort((p, q) => p - q);
const paired = (xs: number[]) => median(ratios(xs));
/** the middle half of the rounds' ratios: how far one round's figure may stray */
const spread = (xs: number[]) => {
  const r = ratios(xs);
  return `${r[Math.floor(r.length / 4)]!.toFixed(3)}-${r[Math.floor((3 * r.length) / 4)]!.toFixed(3)}`;
};
console.log(`${AGENTS} sub-agents over 2 tasks (34 sub-agent calls a run), ${ENGINE}, ${ROUNDS} rounds, CPU ms per run (median):`);
printTable(['run', 'CPU ms', 'vs without', 'median of the rounds\' ratios', 'middle half of the ratios'], [
  ['without record', ma.toFixed(1), '1.00', '1.000', ''],
  ['without record (control)', mc.toFixed(1), (mc / ma).toFixed(3), paired(c).toFixed(3), spread(c)],
  ['record = true', mb.toFixed(1), (mb / ma).toFixed(3), paired(b).toFixed(3), spread(b)],
]);
