/**
 * What a user waits for: the compiled CLI (`node dist/cli/bin.js`, as the published package runs it) measured from
 * outside as whole processes, interleaved round by round with the same Lua on native `lua5.4` and a pure-Lua `aip`
 * stub (the floor). Not a test: figures depend on the machine. Run `npm run build` first; `npm run bench` runs it
 * after the in-process bench, `npm run bench:cli` alone.
 *
 * Figures are medians over rounds, ratios are ratios of those medians (the rounds interleave the runners, so each
 * median is taken over the same moments of the machine's load).
 *   per call    CPU (user+sys) of `run-agent` running twelve 100-chains minus two, / 1,000: a warm call
 *   first chain CPU of one 100-chain minus a 0-chain (the same agent, no call), / 100: JIT warm-up, lazy loads;
 *               in each round, the mean of FIRST_REPEATS such differences
 *   test        wall time of `test` on a 100-case contract file (CLI start-up included)
 * Both are differences of whole processes: a native 100-chain takes ~9 ms, near the 1 ms resolution of the CPU
 * times, and an engine's start-up moves by more than its 100-chain between two runs. Hence 1,000 calls for the
 * per-call figure and repeats for the first chain.
 * Growth: per-call CPU over chains of 50..400 (flat when linear), and `test` on 1k / 10k cases: wall time per case
 * and peak RSS (`--cases` adds 10k; `--quick` skips the growth tables; `--rounds N`; `--bin <path>` measures another
 * build's bin.js).
 * Process timing (CPU, wall, peak RSS): process-timing.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractCasesDir } from './contract-cases.ts';
import { nativeAipStub } from './native-aip-stub.ts';
import { load, median, ms, type Sample, timed } from './process-timing.ts';
import { printTable } from './table.ts';

const ROOT = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
// `--bin <path>`: another build's bin.js (e.g. of an earlier commit, for before/after figures)
const BIN = args.includes('--bin') ? nodePath.resolve(args[args.indexOf('--bin') + 1]) : nodePath.join(ROOT, 'dist', 'cli', 'bin.js');
const ENGINES = ['fengari', 'lua54'] as const;
type Runner = (typeof ENGINES)[number] | 'native';
const CHAIN = 100;
const GROWTH_LENGTHS = [50, 100, 200, 400];
const ROUNDS = Number(args[args.indexOf('--rounds') + 1]) || 7;
const LONG_CHAINS = 12;
const FIRST_REPEATS = 3;

function agent(ws: string, name: string, stage: string, code: string): void {
  writeFileSync(nodePath.join(ws, name), `# ${stage}\n\n\`\`\`lua\n${code}\n\`\`\`\n`);
}

/** `chains-K`: K chains of CHAIN calls one after the other; `chain-N`: one chain of N calls. */
function workspace(): string {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-cli-'));
  mkdirSync(nodePath.join(ws, '.aipack'));
  agent(ws, 'leaf.aip', 'Output', 'return input + 1');
  const chains = (k: number, n: number) =>
    `local v = 0\nfor c = 1, ${k} do\n  for i = 1, ${n} do\n    v = aip.agent.run("leaf", { input = v }).outputs[1]\n  end\nend\nreturn v`;
  for (const k of [0, 1, 2, LONG_CHAINS]) agent(ws, `chains-${k}.aip`, 'After All', chains(k, CHAIN));
  for (const n of GROWTH_LENGTHS) agent(ws, `chain-${n}.aip`, 'After All', chains(1, n));
  return ws;
}

/** The floor: the same agents on native Lua 5.4 over the pure-Lua aip.agent.run of native-aip-stub.ts. */
function nativeStub(ws: string): string {
  const file = nodePath.join(ws, 'native-stub.lua');
  writeFileSync(
    file,
    `${nativeAipStub(ws)}
print(agent_run(arg[1], {}).outputs[1])
`,
  );
  return file;
}

function runAgent(runner: Runner, ws: string, name: string, expected: number): Sample {
  const argv = runner === 'native' ? ['lua5.4', nodePath.join(ws, 'native-stub.lua'), name] : [process.execPath, BIN, 'run-agent', name, '--engine', runner];
  return timed(argv, ws, (s) => (runner === 'native' ? s.trim() === String(expected) : s.includes(`after_all: ${expected}\n`)));
}

const casesDir = (n: number) => contractCasesDir(ROOT, n);

function testRun(engine: Runner, dir: string, n: number): Sample {
  return timed([process.execPath, BIN, 'test', dir, '--engine', engine, '--timeout', '0'], dir, (s) => new RegExp(`\\b${n} passed`).test(s));
}


function headline(ws: string): void {
  const runners: Runner[] = [...ENGINES, 'native'];
  const per = new Map<Runner, { call: number[]; first: number[] }>(runners.map((r) => [r, { call: [], first: [] }]));
  const tests = new Map<Runner, number[]>(ENGINES.map((e) => [e, []]));
  const dir = casesDir(100);
  const loadBefore = load();
  for (let round = 0; round <= ROUNDS; round++) {
    for (const r of runners) {
      const cpu = (k: number) => runAgent(r, ws, `chains-${k}`, k * CHAIN).cpuMs;
      const calls = cpu(LONG_CHAINS) - cpu(2);
      let first = 0;
      for (let i = 0; i < FIRST_REPEATS; i++) first += cpu(1) - cpu(0);
      if (round === 0) continue; // warm-up: the file cache, the compile cache
      per.get(r)?.call.push(calls / ((LONG_CHAINS - 2) * CHAIN));
      per.get(r)?.first.push(first / (FIRST_REPEATS * CHAIN));
    }
    for (const e of ENGINES) {
      const s = testRun(e, dir, 100);
      if (round > 0 && round <= 5) (tests.get(e) as number[]).push(s.wallMs);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const nat = per.get('native') as { call: number[]; first: number[] };
  // ratios of medians: the native chain is a few ms, so one round's difference can be within the timer's noise
  const ratio = (xs: number[], ys: number[]) => median(xs) / median(ys);
  console.log(`\nThrough the CLI (compiled, whole processes, ${ROUNDS} interleaved rounds; load average ${loadBefore} before, ${load()} after)`);
  const rows: string[][] = [];
  for (const e of ENGINES) {
    const p = per.get(e) as { call: number[]; first: number[] };
    rows.push([
      e,
      ms(median(p.call), 3),
      `${ratio(p.call, nat.call).toFixed(1)}x (target ≤ ${e === 'fengari' ? 10 : 5}x)`,
      ms(median(p.first), 3),
      `${ratio(p.first, nat.first).toFixed(1)}x (target ≤ ${e === 'fengari' ? 15 : 7}x)`,
      `${(median(tests.get(e) as number[]) / 1000).toFixed(2)} s (target ≤ 1.0 s)`,
    ]);
  }
  rows.push(['native lua5.4 + Lua aip stub', ms(median(nat.call), 3), '1x', ms(median(nat.first), 3), '1x', '-']);
  printTable(['', `per call, ${CHAIN}-chain (CPU)`, 'vs native', 'per call, first chain (CPU)', 'vs native', '`test`, 100 cases (wall)'], rows);
}

function chainGrowth(ws: string): void {
  const runners: Runner[] = [...ENGINES, 'native'];
  const per = new Map<string, number[]>();
  for (let round = 0; round < 3; round++) {
    for (const r of runners) {
      const c0 = runAgent(r, ws, 'chains-0', 0).cpuMs;
      for (const n of GROWTH_LENGTHS) {
        const key = `${r} ${n}`;
        per.set(key, [...(per.get(key) ?? []), (runAgent(r, ws, `chain-${n}`, n).cpuMs - c0) / n]);
      }
    }
  }
  console.log(`\nGrowth with the chain length through the CLI: per-call CPU, the chain minus a 0-chain (flat when linear; load ${load()})`);
  printTable(
    ['chain length', ...runners.map((r) => `${r} ms/call`)],
    GROWTH_LENGTHS.map((n) => [String(n), ...runners.map((r) => median(per.get(`${r} ${n}`) as number[]).toFixed(3))]),
  );
}

function caseGrowth(counts: number[]): void {
  const rows: string[][] = [];
  for (const n of counts) {
    const dir = casesDir(n);
    const cells = ENGINES.flatMap((e) => {
      const s = testRun(e, dir, n);
      return [ms(s.wallMs / n), ms(s.cpuMs / n), s.rssMb === undefined ? 'n/a' : `${s.rssMb.toFixed(0)} MB`];
    });
    rmSync(dir, { recursive: true, force: true });
    rows.push([String(n), ...cells]);
  }
  console.log(`\nGrowth with the case count: \`test\` per case (wall, CPU) and peak RSS of the largest process (flat per case; target < 300 MB at 10k; load ${load()})`);
  printTable(['cases', ...ENGINES.flatMap((e) => [`${e} wall/case`, `${e} CPU/case`, `${e} peak RSS`])], rows);
}

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
const ws = workspace();
nativeStub(ws);
try {
  const native = spawnSync('lua5.4', ['-v']).status === 0;
  if (!native) throw new Error('lua5.4 is not installed: the native floor cannot be measured');
  console.log(`node ${process.version}, ${os.cpus().length} cores, ${nodePath.relative(ROOT, BIN) || BIN}`);
  if (args.includes('--cases-only')) caseGrowth(args.includes('--cases') ? [1000, 10_000] : [1000]);
  else {
    headline(ws);
    if (!args.includes('--quick')) {
      chainGrowth(ws);
      caseGrowth(args.includes('--cases') ? [1000, 10_000] : [1000]);
    }
  }
} finally {
  rmSync(ws, { recursive: true, force: true });
}
