/**
 * What the simulated runtime costs, per engine side by side (fengari | lua54), plus native `lua5.4` as the floor
 * where it is installed. Not a test: figures depend on the machine. Run with `npm run bench`.
 *
 *   fresh state; one trivial aip.agent.run; per call in a 100-sub-agent chain; the same chain passing a 1 MB
 *   prompt and 10k context globs (time and peak RSS, each in its own process); a 100-case `test` wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineName } from '../src/engine/engine.ts';
import { loadEngine } from '../src/engine/index.ts';
import { Simulator } from '../src/runtime/simulator.ts';

const HERE = fileURLToPath(import.meta.url);
const ROOT = nodePath.resolve(nodePath.dirname(HERE), '..');
const ENGINES: EngineName[] = ['fengari', 'lua54'];
const CHAIN = 100;

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
  agent('chain.aip', 'After All', `local v = 0\nfor i = 1, ${CHAIN} do\n  v = aip.agent.run("leaf", { input = v }).outputs[1]\nend\nreturn v`);
  agent('chain-data.aip', 'Output', `local v = input\nfor i = 1, ${CHAIN} do\n  v = aip.agent.run("leaf-data", { input = v }).outputs[1]\nend\nreturn v.n`);
  return ws;
}

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(runs: number, fn: () => void): number {
  for (let i = 0; i < Math.min(10, runs); i++) fn(); // warm the JIT and the bytecode cache
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

const bigInput = (kind: string) => ({
  prompt: kind === 'prompt' ? 'x'.repeat(1024 * 1024) : 'Fix it',
  globs: kind === 'globs' ? Array.from({ length: 10_000 }, (_, i) => `src/module-${i}/**/*.ts`) : [],
  n: 0,
});

/** Child mode: one data chain in a fresh process, for its time and peak RSS. */
async function child(engine: EngineName, kind: string): Promise<void> {
  await loadEngine(engine);
  const ws = workspace();
  const input = bigInput(kind);
  const t0 = performance.now();
  const out = new Simulator({ workspaceDir: ws, engine }).run({ name: 'chain-data', inputs: [input], baseDir: ws }).outputs?.[0];
  const ms = performance.now() - t0;
  if (out !== CHAIN) throw new Error(`unexpected result ${String(out)}`);
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
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-cases-'));
  const src = nodePath.join(ROOT, 'fixtures', 'sub-agents');
  writeFileSync(nodePath.join(dir, 'instruction-clarifier.aip'), readFileSync(nodePath.join(src, 'instruction-clarifier.aip')));
  const text = readFileSync(nodePath.join(src, 'instruction-clarifier.contract.toml'), 'utf8');
  const [head, first] = text.split(/(?=\[\[case\]\])/);
  const cases = Array.from({ length: 100 }, (_, i) => first.replace(/^name = "(.*)"$/m, `name = "$1 #${i + 1}"`));
  writeFileSync(nodePath.join(dir, 'bench.contract.toml'), head + cases.join('\n'));
  const bin = nodePath.join(ROOT, 'dist', 'cli', 'bin.js');
  const run = () => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [bin, 'test', dir, '--engine', engine], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    if (r.status !== 0) throw new Error(`test --engine ${engine} exited ${r.status}: ${r.stdout.slice(-500)}${r.stderr}`);
    return performance.now() - t0;
  };
  run();
  const ms = median([run(), run(), run()]);
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/** The chain on native Lua 5.4: a pure-Lua aip.agent.run stand-in (fresh env per call, deep copies in and out). */
function native(): Record<string, number> | undefined {
  const probe = spawnSync('lua5.4', ['-v'], { encoding: 'utf8' });
  if (probe.status !== 0) return undefined;
  const script = `
local function copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x) end
  return t
end
local sources = { leaf = ${JSON.stringify(LEAF)}, ["leaf-data"] = ${JSON.stringify(LEAF_DATA)} }
local function agent_run(name, opts)
  local env = setmetatable({ input = copy(opts.input) }, { __index = _G })
  local chunk = assert(load(sources[name], "=" .. name, "t", env))
  return { outputs = { copy(chunk()) } }
end
local function chain(name, v)
  for i = 1, ${CHAIN} do v = agent_run(name, { input = v }).outputs[1] end
  return v
end
local function per_call(name, input, runs)
  local best = math.huge
  for r = 1, runs do
    local t0 = os.clock()
    chain(name, input)
    best = math.min(best, os.clock() - t0)
  end
  return best * 1000 / ${CHAIN}
end
local globs = {}
for i = 1, 10000 do globs[i] = "src/module-" .. i .. "/**/*.ts" end
print(string.format("%.4f %.4f %.4f",
  per_call("leaf", 0, 20),
  per_call("leaf-data", { prompt = string.rep("x", 1024 * 1024), globs = {}, n = 0 }, 5),
  per_call("leaf-data", { prompt = "Fix it", globs = globs, n = 0 }, 5)))
`;
  const r = spawnSync('lua5.4', ['-'], { input: script, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lua5.4: ${r.stderr}`);
  const [trivial, prompt, globs] = r.stdout.trim().split(' ').map(Number);
  return { trivial, prompt, globs };
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
    const chain = measure(7, () => {
      if (new Simulator({ workspaceDir: ws, engine: name }).run({ name: 'chain', baseDir: ws }).afterAll !== CHAIN) throw new Error('chain');
    });
    put(`per call, ${CHAIN}-sub-agent chain`, `${(chain / CHAIN).toFixed(3)} ms`);
    for (const kind of ['prompt', 'globs']) {
      const r = inChild(name, kind);
      put(`per call, chain with ${kind === 'prompt' ? '1 MB prompt' : '10k globs'}`, `${(r.ms / CHAIN).toFixed(2)} ms`);
      put(`  whole chain (${kind}): time, peak RSS`, `${(r.ms / 1000).toFixed(2)} s, ${r.rssMb.toFixed(0)} MB`);
    }
    put('`test`, 100 cases, wall (incl. start-up)', `${(testCommand(name) / 1000).toFixed(2)} s`);
  }
  rmSync(ws, { recursive: true, force: true });
  const floor = native();
  const floorOf: Record<string, string> = floor
    ? {
        [`per call, ${CHAIN}-sub-agent chain`]: `${floor.trivial.toFixed(3)} ms`,
        'per call, chain with 1 MB prompt': `${floor.prompt.toFixed(2)} ms`,
        'per call, chain with 10k globs': `${floor.globs.toFixed(2)} ms`,
      }
    : {};
  for (const [label, values] of Object.entries(per)) add(label, [...values, floorOf[label] ?? (floor ? '-' : 'n/a')]);
  const head = ['', ...ENGINES, floor ? 'native lua5.4' : 'native (lua5.4 not installed)'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (i === 0 ? r[0] : r[1][i - 1]).length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  console.log(`node ${process.version}, ${os.cpus().length} cores`);
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const [label, values] of rows) console.log(line([label, ...values]));
}

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1] as EngineName, args[2]);
else await main();
