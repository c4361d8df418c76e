/**
 * Many distinct sub-agents, through the compiled CLI (`node dist/cli/bin.js`), interleaved round by round with the
 * native floor. Not a test: figures depend on the machine. `npm run build` first; `npm run bench` runs it,
 * `npm run bench:pipeline` alone (`--rounds N`, `--quick` skips the growth table, `--cases` adds 10k cases).
 *
 *   pipeline, per call   CPU of a driver running the pack's `pre` stage over 100 distinct sub-agent files 6 times
 *                        minus 2 times, / 400: a warm call through the pack's stage runner (normalised entries,
 *                        inputs, history, response checks, adoption) and `aip.agent.run`
 *   pipeline, first pass CPU of 1 pass minus a 0-agent pass, / 100: a call that meets its agent file the first time
 *   native               the same driver and pack Lua on native lua5.4 over a pure-Lua `aip` (native-aip-stub.ts)
 *   suite                wall time of `test` on 100 contract cases of fixtures/sub-agents spread over 12 folders,
 *                        each with its own copies of the agents; one case alone; per case at 1,000 (and 10,000)
 * Workloads: pipeline-workspace.ts. Figures are medians over rounds; ratios are ratios of medians.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { driverName, manyAgentSuite, pipelineWorkspace } from './pipeline-workspace.ts';
import { load, median, ms, type Sample, timed } from './process-timing.ts';
import { printTable } from './table.ts';

const ROOT = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const BIN = args.includes('--bin') ? nodePath.resolve(args[args.indexOf('--bin') + 1] as string) : nodePath.join(ROOT, 'dist', 'cli', 'bin.js');
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 5;
const ENGINES = ['fengari', 'lua54'] as const;
type Runner = (typeof ENGINES)[number] | 'native';
const AGENTS = 100;
const [FEW, MANY] = [2, 6];
const RUNS: [number, number][] = [[0, 1], [AGENTS, 1], [AGENTS, FEW], [AGENTS, MANY]];
const TARGET = { call: { fengari: 8, lua54: 3 }, suite: { fengari: 1.0, lua54: 0.7 }, oneCase: 0.3, perCaseAt10k: 3, rssAt10k: 300 };

function drive(runner: Runner, ws: string, n: number, rounds: number): Sample {
  const want = String(n * rounds);
  if (runner === 'native') return timed(['lua5.4', 'driver/native.lua', String(n), String(rounds)], ws, (s) => s.trim() === want);
  return timed([process.execPath, BIN, 'run-agent', driverName(n, rounds), '--engine', runner], ws, (s) => s.includes(`after_all: ${want}\n`));
}

function suite(engine: Runner, dir: string, n: number): Sample {
  return timed([process.execPath, BIN, 'test', dir, '--engine', engine, '--timeout', '0'], dir, (s) => new RegExp(`\\b${n} passed`).test(s));
}

function pipeline(ws: string): void {
  const runners: Runner[] = [...ENGINES, 'native'];
  const per = new Map<Runner, { call: number[]; first: number[] }>(runners.map((r) => [r, { call: [], first: [] }]));
  const suites = new Map<Runner, { hundred: number[]; one: number[] }>(ENGINES.map((e) => [e, { hundred: [], one: [] }]));
  const hundred = manyAgentSuite(ROOT, 100);
  const one = manyAgentSuite(ROOT, 1);
  const loadBefore = load();
  for (let round = 0; round <= ROUNDS; round++) {
    for (const r of runners) {
      const cpu = (n: number, rounds: number) => drive(r, ws, n, rounds).cpuMs;
      const call = (cpu(AGENTS, MANY) - cpu(AGENTS, FEW)) / (AGENTS * (MANY - FEW));
      const first = (cpu(AGENTS, 1) - cpu(0, 1)) / AGENTS;
      if (round === 0) continue; // warm-up: the file cache, the compile cache
      per.get(r)?.call.push(call);
      per.get(r)?.first.push(first);
    }
    for (const e of ENGINES) {
      const h = suite(e, hundred, 100).wallMs;
      const o = suite(e, one, 1).wallMs;
      if (round === 0) continue;
      suites.get(e)?.hundred.push(h);
      suites.get(e)?.one.push(o);
    }
  }
  rmSync(hundred, { recursive: true, force: true });
  rmSync(one, { recursive: true, force: true });
  const nat = per.get('native') as { call: number[]; first: number[] };
  const ratio = (xs: number[], ys: number[]) => median(xs) / median(ys);
  console.log(`\nMany distinct sub-agents, through the CLI (compiled, whole processes, ${ROUNDS} interleaved rounds; load ${loadBefore} before, ${load()} after)`);
  const rows = ENGINES.map((e) => {
    const p = per.get(e) as { call: number[]; first: number[] };
    const s = suites.get(e) as { hundred: number[]; one: number[] };
    return [
      e,
      ms(median(p.call), 3),
      `${ratio(p.call, nat.call).toFixed(1)}x (target ≤ ${TARGET.call[e]}x)`,
      ms(median(p.first), 3),
      `${ratio(p.first, nat.first).toFixed(1)}x`,
      `${(median(s.hundred) / 1000).toFixed(2)} s (target ≤ ${TARGET.suite[e]} s)`,
      `${(median(s.one) / 1000).toFixed(2)} s (target ≤ ${TARGET.oneCase} s)`,
    ];
  });
  rows.push(['native lua5.4 + Lua aip stub', ms(median(nat.call), 3), '1x', ms(median(nat.first), 3), '1x', '-', '-']);
  printTable(['', 'pipeline, per call (CPU)', 'vs native', 'pipeline, first pass (CPU)', 'vs native', '`test`, 100 cases, 12 folders (wall)', '`test`, 1 case (wall)'], rows);
}

function caseGrowth(counts: number[]): void {
  const rows = counts.map((n) => {
    const dir = manyAgentSuite(ROOT, n);
    const cells = ENGINES.flatMap((e) => {
      const s = suite(e, dir, n);
      return [ms(s.wallMs / n), ms(s.cpuMs / n), s.rssMb === undefined ? 'n/a' : `${s.rssMb.toFixed(0)} MB`];
    });
    rmSync(dir, { recursive: true, force: true });
    return [String(n), ...cells];
  });
  console.log(`\nMany-agent suite by case count: \`test\` per case (wall, CPU) and peak RSS (targets at 10k: ≤ ${TARGET.perCaseAt10k} ms/case, ≤ ${TARGET.rssAt10k} MB; load ${load()})`);
  printTable(['cases', ...ENGINES.flatMap((e) => [`${e} wall/case`, `${e} CPU/case`, `${e} peak RSS`])], rows);
}

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
if (spawnSync('lua5.4', ['-v']).status !== 0) throw new Error('lua5.4 is not installed: the native floor cannot be measured');
const ws = pipelineWorkspace(ROOT, AGENTS, RUNS);
try {
  console.log(`node ${process.version}, ${os.cpus().length} cores, ${nodePath.relative(ROOT, BIN) || BIN}`);
  pipeline(ws);
  if (!args.includes('--quick')) caseGrowth(args.includes('--cases') ? [1000, 10_000] : [1000]);
} finally {
  rmSync(ws, { recursive: true, force: true });
}
