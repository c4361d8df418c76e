/**
 * What the simulated runtime costs, per engine side by side (fengari | lua54), plus native `lua5.4` as the floor
 * where it is installed. Not a test: figures depend on the machine. Run with `npm run bench`.
 *
 *   fresh state; one trivial aip.agent.run; per call in a 100-sub-agent chain; the same chain passing a 1 MB
 *   prompt and 10k context globs (time and peak RSS, each in its own process); a 100-case `test` wall time.
 *   The built-in pro@coder/code-map refreshing the map of 2,000 unchanged files (no model call; time and peak RSS
 *   in its own process; target under 2 s and 300 MB).
 *   Then linear growth: per-call cost over chain lengths 50..400 and prompt sizes 0.25..2 MB.
 *   `npm run bench -- --growth` prints only the growth tables.
 *   Parallel groups (parallel.bench.ts): a group of 4 at concurrency 4 with 200 ms model calls, and the group
 *   machinery's cost per member; `npm run bench -- --parallel` prints only those.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineName } from '../src/engine/engine.ts';
import { blake3 } from '@noble/hashes/blake3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { loadEngine } from '../src/engine/index.ts';
import { REPO_PACK } from '../src/runtime/packs.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import { contractCasesDir } from './contract-cases.ts';
import { nativeAipStub } from './native-aip-stub.ts';
import { printTable } from './table.ts';
import { parallelBench } from './parallel.bench.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = nodePath.resolve(nodePath.dirname(HERE), '..');
const ENGINES: EngineName[] = ['fengari', 'lua54'];
const CHAIN = 100;
const CHAIN_LENGTHS = [50, 100, 200, 400];
const PROMPT_MB = [0.25, 0.5, 1, 2];

const LEAF = 'return input + 1';
const LEAF_DATA = 'return { prompt = input.prompt, globs = input.globs, n = input.n + 1 }';

function workspace(): string {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-ws-'));
  mkdirSync(nodePath.join(ws, '.aipack'));
  const agent = (name: string, stage: string, code: string) => writeFileSync(nodePath.join(ws, name), `# ${stage}\n\n\`\`\`lua\n${code}\n\`\`\`\n`);
  agent('noop.aip', 'After All', 'return 1');
  agent('leaf.aip', 'Output', LEAF);
  agent('leaf-data.aip', 'Output', LEAF_DATA);
  agent('one-call.aip', 'After All', 'return aip.agent.run("leaf", { input = 1 }).outputs[1]');
  for (const n of new Set([CHAIN, ...CHAIN_LENGTHS])) {
    agent(`chain-${n}.aip`, 'After All', `local v = 0\nfor i = 1, ${n} do\n  v = aip.agent.run("leaf", { input = v }).outputs[1]\nend\nreturn v`);
  }
  agent('chain-data.aip', 'Output', `local v = input\nfor i = 1, ${CHAIN} do\n  v = aip.agent.run("leaf-data", { input = v }).outputs[1]\nend\nreturn v.n`);
  return ws;
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU milliseconds of this process so far: stable on a shared machine, where wall time depends on the others. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Median CPU time of `fn` (the figures are CPU time too). */
function measure(runs: number, fn: () => void): number {
  for (let i = 0; i < Math.min(10, runs); i++) fn(); // warm the JIT and the caches
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = cpuMs();
    fn();
    samples.push(cpuMs() - t0);
  }
  return median(samples);
}

/** `kind`: 'prompt' (1 MB), 'prompt:<MB>', or 'globs' (10k) */
const bigInput = (kind: string) => ({
  prompt: kind.startsWith('prompt') ? 'x'.repeat(Math.round(Number(kind.split(':')[1] ?? 1) * 1024 * 1024)) : 'Fix it',
  globs: kind === 'globs' ? Array.from({ length: 10_000 }, (_, i) => `src/module-${i}/**/*.ts`) : [],
  n: 0,
});

/** Child mode: one data chain in a fresh process, for its time and peak RSS. */
async function child(engine: EngineName, kind: string): Promise<void> {
  await loadEngine(engine);
  const ws = workspace();
  const input = bigInput(kind);
  // warm up (JIT, caches) on a small input first, as the in-process figures do
  new Simulator({ workspaceDir: ws, engine }).run({ name: 'chain-data', inputs: [bigInput('small')], baseDir: ws });
  const t0 = cpuMs();
  // the default budget stops a run tree that copies a 2 MB prompt 200 times (conversions are charged by size)
  const out = new Simulator({ workspaceDir: ws, engine, budget: 1e12 }).run({ name: 'chain-data', inputs: [input], baseDir: ws }).outputs?.[0];
  const ms = cpuMs() - t0;
  if (out !== CHAIN) throw new Error(`unexpected result ${String(out)}`);
  rmSync(ws, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

const CODE_MAP_FILES = 2000;

/** A workspace of `n` files whose code map is up to date (written here from their BLAKE3 hashes), keyed by absolute
 * path as a map without `path_base_dir` or `rel_base` is. */
function codeMapWorkspace(n: number): string {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-code-map-'));
  const fileMap: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const rel = `src/dir-${Math.floor(i / 100)}/module-${i}.ts`;
    const text = `export const value${i} = ${i};\nexport function f${i}(x: number): number {\n  return x + ${i};\n}\n`;
    mkdirSync(nodePath.dirname(nodePath.join(ws, rel)), { recursive: true });
    writeFileSync(nodePath.join(ws, rel), text);
    const hash = bytesToHex(blake3(new TextEncoder().encode(text)));
    fileMap[nodePath.join(ws, rel)] = { file_path: rel, kind: 'text', summary: `Module ${i}`, when_to_use: 'when value changes', hash };
  }
  const mapPath = nodePath.join(ws, '.aipack/.prompt/pro@coder/.cache/code-map/code-map.json');
  mkdirSync(nodePath.dirname(mapPath), { recursive: true });
  writeFileSync(mapPath, JSON.stringify({ file_map: fileMap }, null, 2));
  return ws;
}

/** One refresh by pro@coder/code-map: it lists, hashes and compares, and must ask no model. */
function codeMapRefresh(engine: EngineName, ws: string, n: number): void {
  const input = { agent_config: { name: 'pro@coder/code-map', globs: ['src/**/*.ts'] }, coder_params: {}, coder_prompt_dir: '.aipack/.prompt/pro@coder' };
  const sim = new Simulator({ workspaceDir: ws, engine, packs: [REPO_PACK] });
  const out = sim.run({ name: 'pro@coder/code-map', inputs: [input], baseDir: ws }).afterAll as { agent_result?: { unchanged?: unknown[] } } | undefined;
  const unchanged = out?.agent_result?.unchanged?.length;
  if (unchanged !== n || sim.trace.of('ai').length !== 0) throw new Error(`code-map refresh: ${unchanged} unchanged, ${sim.trace.of('ai').length} model calls`);
}

/** Child mode: the code-map refresh of CODE_MAP_FILES unchanged files, after a warm-up on 50. */
async function codeMapChild(engine: EngineName): Promise<void> {
  await loadEngine(engine);
  const small = codeMapWorkspace(50);
  codeMapRefresh(engine, small, 50);
  rmSync(small, { recursive: true, force: true });
  const ws = codeMapWorkspace(CODE_MAP_FILES);
  const t0 = cpuMs();
  codeMapRefresh(engine, ws, CODE_MAP_FILES);
  const ms = cpuMs() - t0;
  rmSync(ws, { recursive: true, force: true });
  process.stdout.write(JSON.stringify({ ms, rssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

function inChild(engine: EngineName, kind: string): { ms: number; rssMb: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', HERE, '--child', engine, kind], { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`child ${engine} ${kind}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string);
}

/** `coder-subagents test` on a 100-case file, wall time including the CLI start-up. */
function testCommand(engine: EngineName): number {
  const dir = contractCasesDir(ROOT, 100);
  const bin = nodePath.join(ROOT, 'dist', 'cli', 'bin.js');
  const run = () => {
    const t0 = performance.now();
    // CODER_SUBAGENTS_DIST: the compiled CLI, as the published package runs (a source checkout would run the sources through tsx)
    const r = spawnSync(process.execPath, [bin, 'test', dir, '--engine', engine], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CODER_SUBAGENTS_DIST: '1' } });
    if (r.status !== 0) throw new Error(`test --engine ${engine} exited ${r.status}: ${r.stdout.slice(-500)}${r.stderr}`);
    return performance.now() - t0;
  };
  run();
  const ms = median([run(), run(), run()]);
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/** The same chains on native Lua 5.4 over the pure-Lua aip.agent.run of native-aip-stub.ts; os.clock (CPU) medians. */
function native(ws: string): Record<string, number> | undefined {
  const probe = spawnSync('lua5.4', ['-v'], { encoding: 'utf8' });
  if (probe.status !== 0) return undefined;
  const lists = (xs: number[]) => `{ ${xs.join(', ')} }`;
  const script = [
    `local CHAIN, CHAIN_LENGTHS, PROMPT_MB = ${CHAIN}, ${lists(CHAIN_LENGTHS)}, ${lists(PROMPT_MB)}`,
    nativeAipStub(ws),
    readFileSync(new URL('./runtime-native.lua', import.meta.url), 'utf8'),
  ].join('\n');
  const r = spawnSync('lua5.4', ['-'], { input: script, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lua5.4: ${r.stderr}`);
  const v = r.stdout.trim().split(' ').map(Number);
  const out: Record<string, number> = { trivial: v[0], prompt: v[1], globs: v[2] };
  CHAIN_LENGTHS.forEach((n, i) => (out[`chain:${n}`] = v[3 + i]));
  PROMPT_MB.forEach((mb, i) => (out[`prompt:${mb}`] = v[3 + CHAIN_LENGTHS.length + i]));
  return out;
}

/** Median per-call cost of an n-sub-agent chain (in process, warmed up). */
function chainPerCall(ws: string, engine: EngineName, n: number): number {
  const runs = Math.max(3, Math.round(700 / n));
  return (
    measure(runs, () => {
      if (new Simulator({ workspaceDir: ws, engine }).run({ name: `chain-${n}`, baseDir: ws }).afterAll !== n) throw new Error(`chain-${n}`);
    }) / n
  );
}

/**
 * Linear growth: the per-call cost stays flat when the chain gets longer, and grows in proportion to the data when
 * the prompt gets bigger (the last column divides by the size). Chains of 100; data chains in their own processes.
 */
async function growth(ws: string, floor: Record<string, number> | undefined): Promise<void> {
  const engineCols = ENGINES.map((e) => `${e} ms/call`);
  const rows: string[][] = [];
  const per = new Map<EngineName, number[]>();
  for (const name of ENGINES) {
    await loadEngine(name);
    per.set(name, CHAIN_LENGTHS.map((n) => chainPerCall(ws, name, n)));
  }
  CHAIN_LENGTHS.forEach((n, i) => rows.push([String(n), ...ENGINES.map((e) => (per.get(e) as number[])[i].toFixed(3)), floor ? floor[`chain:${n}`].toFixed(4) : '-']));
  console.log('\nLinear growth with the chain length (trivial sub-agent): per-call CPU ms, flat when linear');
  printTable(['chain length', ...engineCols, 'native ms/call'], rows);

  const dataRows: string[][] = [];
  const results = new Map<EngineName, { ms: number; rssMb: number }[]>();
  for (const name of ENGINES) results.set(name, PROMPT_MB.map((mb) => inChild(name, `prompt:${mb}`)));
  // linear: per-call = fixed + slope * size, so the cost added per extra MB stays about the same from row to row
  const slope = (costs: number[], i: number) => {
    if (i === 0) return '';
    const perMb = (costs[i] - costs[i - 1]) / (PROMPT_MB[i] - PROMPT_MB[i - 1]);
    return ` (${perMb < 0 ? '' : '+'}${perMb.toFixed(2)}/MB)`;
  };
  const costsOf = (e: EngineName) => (results.get(e) as { ms: number }[]).map((r) => r.ms / CHAIN);
  const nativeCosts = floor ? PROMPT_MB.map((mb) => floor[`prompt:${mb}`]) : [];
  PROMPT_MB.forEach((mb, i) => {
    const cells = ENGINES.flatMap((e) => {
      const costs = costsOf(e);
      return [`${costs[i].toFixed(2)}${slope(costs, i)}`, `${(results.get(e) as { rssMb: number }[])[i].rssMb.toFixed(0)} MB`];
    });
    dataRows.push([`${mb} MB`, ...cells, floor ? `${nativeCosts[i].toFixed(3)}${slope(nativeCosts, i)}` : '-']);
  });
  console.log(`\nLinear growth with the data size (${CHAIN}-chain passing a prompt): per-call CPU ms (the cost each extra MB adds), and peak RSS`);
  printTable(['prompt', ...ENGINES.flatMap((e) => [`${e} ms/call`, `${e} RSS`]), 'native ms/call'], dataRows);
}

async function main(): Promise<void> {
  const rows: [string, string[]][] = [];
  const add = (label: string, values: string[]) => rows.push([label, values]);
  const ws = workspace();
  const per: Record<string, string[]> = {};
  const put = (label: string, value: string) => (per[label] ??= []).push(value);
  for (const name of ENGINES) {
    const engine = await loadEngine(name);
    const stateOptions = {
      budget: 1e8,
      budgetMessage: 'budget',
      moduleDirs: [],
      readFile: () => undefined,
      loadRoots: [ws],
      baseDir: ws,
      print: () => {},
      displayPath: (p: string) => p,
    };
    put('fresh Lua state (sandboxed libs)', `${measure(200, () => engine.createState(stateOptions).close()).toFixed(3)} ms`);
    put('agent with one stage (state + aip + prelude)', `${measure(100, () => void new Simulator({ workspaceDir: ws, engine: name }).run({ name: 'noop', baseDir: ws })).toFixed(2)} ms`);
    put('trivial aip.agent.run (caller + 1 sub-agent)', `${measure(50, () => {
      if (new Simulator({ workspaceDir: ws, engine: name }).run({ name: 'one-call', baseDir: ws }).afterAll !== 2) throw new Error('one-call');
    }).toFixed(2)} ms`);
    put(`per call, ${CHAIN}-sub-agent chain`, `${chainPerCall(ws, name, CHAIN).toFixed(3)} ms`);
    for (const kind of ['prompt', 'globs']) {
      const r = inChild(name, kind);
      put(`per call, chain with ${kind === 'prompt' ? '1 MB prompt' : '10k globs'}`, `${(r.ms / CHAIN).toFixed(2)} ms`);
      put(`  whole chain (${kind}): time, peak RSS`, `${(r.ms / 1000).toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`);
    }
    const cm = inChild(name, 'code-map');
    put(`code-map refresh, ${CODE_MAP_FILES} unchanged files: time, peak RSS (target < 2 s, 300 MB)`, `${(cm.ms / 1000).toFixed(2)} s, ${cm.rssMb.toFixed(0)} MB`);
    put('`test`, 100 cases, wall (incl. start-up)', `${(testCommand(name) / 1000).toFixed(2)} s`);
  }
  const floor = native(ws);
  const floorOf: Record<string, string> = floor
    ? {
        [`per call, ${CHAIN}-sub-agent chain`]: `${floor.trivial.toFixed(3)} ms`,
        'per call, chain with 1 MB prompt': `${floor.prompt.toFixed(2)} ms`,
        'per call, chain with 10k globs': `${floor.globs.toFixed(2)} ms`,
      }
    : {};
  for (const [label, values] of Object.entries(per)) add(label, [...values, floorOf[label] ?? (floor ? '-' : 'n/a')]);
  const head = ['', ...ENGINES, floor ? 'native lua5.4' : 'native (lua5.4 not installed)'];
  console.log(`node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}; times are CPU time (wall time for \`test\`)`);
  printTable(head, rows.map(([label, values]) => [label, ...values]));
  await growth(ws, floor);
  await parallelBench();
  rmSync(ws, { recursive: true, force: true });
}

const args = process.argv.slice(2);
if (args[0] === '--child' && args[2] === 'code-map') await codeMapChild(args[1] as EngineName);
else if (args[0] === '--child') await child(args[1] as EngineName, args[2]);
else if (args[0] === '--parallel') await parallelBench();
else if (args[0] === '--growth') {
  const ws = workspace();
  await growth(ws, native(ws));
  rmSync(ws, { recursive: true, force: true });
} else await main();
