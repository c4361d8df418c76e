/**
 * What recording (`record = true`) adds to a run, counted in machine instructions, which the load of a shared machine
 * does not change (the CPU-time bench, record.bench.ts, spreads as much as what it measures there). The workload is
 * record.bench.ts's (20 sub-agents, 34 calls a run). Needs valgrind (callgrind and callgrind_control).
 * `npx tsx bench/record-instructions.ts [--warm N] [--runs N] [--engine fengari|lua54] [--pack DIR]`.
 *
 * The script runs itself under callgrind with counting off, warms up (`--warm` runs of each workspace), then counts
 * each run alone: callgrind_control turns counting on before it and off after it and dumps the count, plain and
 * recorded runs alternating (ABBA). Each count is then split with callgrind_annotate: V8's optimizing compiler
 * (TurboFan) goes on compiling in every run, by 20 to 230 million instructions a run that follow no workspace, so
 * the figure compared is the count outside it (the run's own work, its garbage collection included).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadEngine, type EngineName } from '../src/engine/index.ts';
import { ScriptedAi } from '../src/runtime/ai.ts';
import { REPO_PACK } from '../src/runtime/packs.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import { recordBenchWorkspace } from './record-workspace.ts';
import { printTable } from './table.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const WARM = Number(arg('--warm') ?? 4);
const RUNS = Number(arg('--runs') ?? 8);
const ENGINE = (arg('--engine') ?? 'fengari') as EngineName;
const PACK = arg('--pack') ?? REPO_PACK.dir;

/** Under callgrind: warm-up, then each run counted alone (one dump each, labelled by its workspace). */
async function child(): Promise<void> {
  const ctl = (...args: string[]) => execFileSync('callgrind_control', [...args, String(process.pid)], { stdio: 'ignore' });
  await loadEngine(ENGINE);
  const plain = recordBenchWorkspace(false);
  const recorded = recordBenchWorkspace(true);
  const pack = { ...REPO_PACK, dir: PACK };
  const runOnce = (ws: string) => {
    // no deadline: under valgrind a run takes ~50 times as long
    const sim = new Simulator({ workspaceDir: ws, engine: ENGINE, packs: [pack], timeoutMs: 1e9, ai: ScriptedAi.fromList([{ agent: 'pro@coder', content: 'It is fine.', reusable: true }]) });
    sim.run({ name: 'pro@coder' });
    const failed = sim.trace.events.find((e) => e.kind === 'stage' && e.error !== undefined);
    if (failed) throw new Error(`a stage failed: ${JSON.stringify(failed)}`);
  };
  const counted = (label: string, body: () => void) => {
    ctl('-z');
    ctl('-i', 'on');
    body();
    ctl('-i', 'off');
    ctl('-d', label);
  };
  for (let i = 0; i < WARM; i++) runOnce(plain), runOnce(recorded);
  // what turning counting on and off costs, taken off each run
  counted('empty', () => {});
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 === 0 ? [plain, recorded] : [recorded, plain];
    for (const ws of order) counted(ws === plain ? 'plain' : 'recorded', () => runOnce(ws));
  }
  for (const ws of [plain, recorded]) fs.rmSync(ws, { recursive: true, force: true });
}

interface Count {
  label: string;
  total: number;
  /** inclusive count of V8's optimizing compiler */
  compiler: number;
}

function countOf(file: string): Count {
  const text = fs.readFileSync(file, 'utf8');
  const label = /^desc: Trigger: dump (\w+)/m.exec(text)?.[1] ?? '?';
  const total = Number(/^totals: (\d+)/m.exec(text)?.[1] ?? NaN);
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 }).toString();
  let compiler = 0;
  for (const line of annotated.split('\n')) {
    // recursive entries ('2) repeat their callers' counts
    if (line.includes("'2") || !line.includes('v8::internal::Compiler::CompileOptimized(')) continue;
    compiler = Math.max(compiler, Number(/^\s*([\d,]+)/.exec(line)?.[1]?.replace(/,/g, '') ?? 0));
  }
  return { label, total, compiler };
}

function parent(): void {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-record-instructions-'));
  const script = fileURLToPath(import.meta.url);
  const r = spawnSync('valgrind', [
    '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${dir}/callgrind.out`,
    process.execPath, '--predictable', ...process.execArgv, script, '--child', ...process.argv.slice(2),
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`valgrind failed (${r.status ?? r.signal}): ${r.stderr.toString().slice(-2000)}`);
  const counts = fs.readdirSync(dir).filter((f) => /^callgrind\.out\.\d+$/.test(f)).map((f) => countOf(nodePath.join(dir, f)));
  fs.rmSync(dir, { recursive: true, force: true });
  const empty = counts.find((c) => c.label === 'empty')?.total ?? 0;
  const mean = (label: string, part: (c: Count) => number) => {
    const xs = counts.filter((c) => c.label === label).map(part);
    return xs.reduce((a, b) => a + b, 0) / xs.length / 1e6;
  };
  const outside = (c: Count) => c.total - empty - c.compiler;
  const all = (c: Count) => c.total - empty;
  const compiler = (c: Count) => c.compiler;
  const p = mean('plain', outside);
  const q = mean('recorded', outside);
  console.log(`${RUNS} runs of each after ${WARM} of each, ${ENGINE}, million instructions a run (means):`);
  printTable(['run', 'outside the optimizing compiler', 'vs without', 'optimizing compiler', 'all'], [
    ['without record', p.toFixed(1), '1.000', mean('plain', compiler).toFixed(1), mean('plain', all).toFixed(1)],
    ['record = true', q.toFixed(1), (q / p).toFixed(3), mean('recorded', compiler).toFixed(1), mean('recorded', all).toFixed(1)],
  ]);
}

if (process.argv.includes('--child')) await child();
else parent();
