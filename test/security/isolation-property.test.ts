// A generated property of pooled states: whatever a case A does to its state (globals, library tables, metatables,
// the PRNG, the collector, package tables, coroutines, host functions stashed away, keys removed and added again),
// a probe case B run after it observes what B observes on a brand-new state. B (fixtures/isolation/probe.aip)
// returns its observations as `shape` (what any new state gives alike: compared with B's first run, on a brand-new
// state, always), `order` (the iteration order of every table: the same in every new fengari state, on lua54 only
// within one state) and `identity` (the values' addresses: only the same state gives them again), compared when
// B ran on states where they must be equal. Through the library (`runStage`) and through the
// contract cases (`runContractFiles`, in this process, and `runContractFilesIsolated`, the `test` command's
// worker), on the engine of the vitest project. Seeded: FC_SEED=<seed> replays a failure.
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LuaState } from '../../src/engine/engine.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { runContractFiles } from '../../src/harness/suite.ts';
import { runContractFilesIsolated } from '../../src/harness/isolated.ts';
import { ENGINE_NAME, onLua54, testEngine } from '../helpers/engine.ts';
import { FC_SEED } from '../helpers/fc-seed.ts';

// nothing here is about speed: runs are counted, not timed, and the limit is far from any of them
vi.setConfig({ testTimeout: 600_000 });

const PROBE = fs.readFileSync(new URL('../../fixtures/isolation/probe.aip', import.meta.url), 'utf8');
const RUNS = Number(process.env.ISOLATION_RUNS ?? 12);

// ---- the grammar of case A -------------------------------------------------------------------------------------

const LIBS = ['string', 'table', 'math', 'os', 'io', 'coroutine', 'utf8', 'package', 'package.loaded', 'package.preload', 'package.searchers', 'aip', 'aip.json', 'aip.path', 'aip.file', 'getmetatable("")'];
const KEYS = ['len', 'format', 'upper', 'insert', 'concat', 'floor', 'random', 'randomseed', 'time', 'write', 'wrap', 'path', 'loaded', 'string', 'json', 'parse', 'exists', 'save', '__index', '__name', 'extra', 1, 2];
const VALUES = ['nil', '1', '"A"', '{}', 'function() return "A" end', 'print', 'aip.file.save', '_G', 'string', 'coroutine.create(function() coroutine.yield() end)'];
const GLOBALS = ['print', 'pairs', 'next', 'tostring', 'type', 'pcall', 'error', 'require', 'setmetatable', 'rawset', 'select', 'load', 'string', 'aip', 'collectgarbage', 'newglobal'];
const AIP_ERROR = 'local ok, e = pcall(aip.json.parse, "{") local mt = getmetatable(e)';
const GC = 'if collectgarbage then collectgarbage() end';

const key = (k: string | number) => (typeof k === 'number' ? `[${k}]` : `["${k}"]`);
const lib = fc.constantFrom(...LIBS);
const keyArb = fc.constantFrom(...KEYS);
const value = fc.constantFrom(...VALUES);

/** one state-changing statement; `seeds` collects the seeds A gives the PRNG */
const snippet = fc.oneof(
  fc.record({ g: fc.constantFrom(...GLOBALS), v: value }).map(({ g, v }) => `_G.${g} = ${v}`),
  fc.record({ g: fc.constantFrom(...GLOBALS), v: value }).map(({ g, v }) => `rawset(_G, "${g}", ${v})`),
  fc.record({ l: lib, k: keyArb, v: value }).map(({ l, k, v }) => `${l}${key(k)} = ${v}`),
  fc.record({ l: lib, k: keyArb, v: value }).map(({ l, k, v }) => `rawset(${l}, ${typeof k === 'number' ? k : `"${k}"`}, ${v})`),
  // a key removed and added again: another iteration order unless the put-back restores the table's layout
  fc.record({ l: lib, k: keyArb }).map(({ l, k }) => `local t = ${l} local v = rawget(t, ${typeof k === 'number' ? k : `"${k}"`}) rawset(t, ${typeof k === 'number' ? k : `"${k}"`}, nil) ${GC} rawset(t, ${typeof k === 'number' ? k : `"${k}"`}, v)`),
  lib.map((l) => `local t, saved = ${l}, {} for k, v in pairs(t) do saved[#saved + 1] = { k, v } end for _, p in ipairs(saved) do rawset(t, p[1], nil) end ${GC} for i = #saved, 1, -1 do rawset(t, saved[i][1], saved[i][2]) end`),
  fc.record({ l: lib, v: value }).map(({ l, v }) => `setmetatable(${l}, { __index = function() return ${v} end, __newindex = function() end })`),
  fc.constantFrom(
    `${AIP_ERROR} mt.__tostring = function() aip.file.save("pwned.txt", "x") return "hijacked" end`,
    `${AIP_ERROR} mt.__index = function() return "leak" end`,
    `${AIP_ERROR} mt.__name = "Mine"`,
    `${AIP_ERROR} mt.channel = "from A"`,
    `${AIP_ERROR} setmetatable(mt, { __index = function() return "meta" end })`,
    'getmetatable("").__index = { upper = function() return "hijacked" end }',
    'getmetatable("").__add = nil',
    'getmetatable("").__index.extra = function() return "A" end',
    'setmetatable(getmetatable(""), { __index = function() return "meta" end })',
    'package.path = "/elsewhere/?.lua"',
    'package.cpath = "/x/?.so"',
    'package.loaded.string = nil',
    'package.loaded.planted = { "A" }',
    'package.preload.planted = function() return "A" end',
    'table.insert(package.searchers, 1, function() return "\\n\\tplanted" end)',
    'table.remove(package.searchers)',
    'string.co = coroutine.wrap(function() while true do coroutine.yield(1) end end) string.co()',
    '_G.co = coroutine.create(function() coroutine.yield() end) coroutine.resume(_G.co)',
    'local co = coroutine.create(function() string.inside = true coroutine.yield() end) coroutine.resume(co) _G.pending = co',
    'if collectgarbage then collectgarbage("stop") end',
    'if collectgarbage then collectgarbage("generational", 5, 5) end',
    'if collectgarbage then collectgarbage("incremental", 1000, 10, 2) end',
    'if collectgarbage then collectgarbage("step", 100) end',
    'local f = load("x_from_load = 1 string.from_load = true") f()',
    'aip.json.parse = function() return "A" end',
    'math.random = function() return 4 end',
  ),
  fc.integer({ min: 1, max: 2 ** 30 }).map((n) => `math.randomseed(${n})`),
);

/** case A: its statements, each in its own pcall (one that fails leaves the others to run), and a nil result */
const caseA = fc.array(snippet, { minLength: 1, maxLength: 6 }).map((lines) => lines.map((l) => `pcall(function() ${l} end)`).join('\n'));

const agent = (code: string) => `# After All\n\n\`\`\`lua\n${code}\nreturn nil\n\`\`\`\n`;
const seedsOf = (code: string) => [...code.matchAll(/math\.randomseed\((\d+)\)/g)].map((m) => Number(m[1]));

// ---- observing ------------------------------------------------------------------------------------------------

interface Observed {
  shape: string;
  order: string;
  identity: string;
  draw: number;
  /** the states B ran on, in the order it took them */
  states: LuaState[];
}

/** the states each call makes or takes: whether B ran on the same ones as before */
let taken: LuaState[] = [];
const createState = testEngine.createState;
beforeAll(() => {
  (testEngine as { createState: typeof createState }).createState = (options) => {
    const s = createState(options);
    taken.push(s);
    return s;
  };
});
afterAll(() => {
  (testEngine as { createState: typeof createState }).createState = createState;
});

function observe(run: () => unknown): Observed {
  taken = [];
  const raw = run() as Partial<Observed> | undefined;
  return { shape: raw?.shape ?? `no observation: ${JSON.stringify(raw)}`, order: raw?.order ?? '', identity: raw?.identity ?? '', draw: raw?.draw ?? -1, states: taken };
}

const sameStates = (a: Observed, b: Observed) => a.states.length === b.states.length && a.states.every((s, i) => s === b.states[i]);

/** the first draws of an unseeded generator after each seed (the probe's `draw`), on this engine */
function drawsAfter(seeds: number[]): number[] {
  return seeds.map((n) => {
    const s = testEngine.createState({ budget: 1e7, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: ['/nowhere'], baseDir: '/nowhere', print: () => {}, displayPath: (p) => p });
    try {
      return s.runChunk(`math.randomseed(${n}) return math.random(0, 1073741824)`, 't.lua', 1, {}, 'serde') as number;
    } finally {
      s.close();
    }
  });
}

/** `after` observed what `base` did: the shape always, the order where it must be equal, identities on the same states */
function expectSame(context: string, base: Observed, after: Observed, sameState: boolean): void {
  expect(after.shape, context).toBe(base.shape);
  if (sameState || !onLua54) expect(after.order, context).toBe(base.order);
  if (sameState) expect(after.identity, context).toBe(base.identity);
}

/**
 * B after A equals B on a brand-new state (`fresh`, the first B of the file): its shape always, its order and
 * identities when it ran on the same states as the B before A (`before`) or as `fresh`; no seed of A carries over.
 */
function expectIsolated(a: string, fresh: Observed, before: Observed, after: Observed): void {
  const context = `case A (FC_SEED=${FC_SEED}, ${ENGINE_NAME}):\n${a}`;
  expectSame(context, fresh, after, sameStates(after, fresh));
  if (sameStates(after, before)) expectSame(context, before, after, true);
  const seeds = seedsOf(a);
  if (seeds.length > 0) expect(drawsAfter(seeds), context).not.toContain(after.draw);
}

let ws: string;
beforeAll(() => {
  ws = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'isolation-property-')));
  fs.writeFileSync(nodePath.join(ws, 'b.aip'), PROBE);
});
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

describe(`a pooled state is a new one for a probe case, whatever case A did (${ENGINE_NAME})`, () => {
  it('through the library (runStage)', () => {
    const stage = (name: string) => runStage({ agent: name, stage: 'pre', prompt: 'Go', baseDir: ws }).rawResponse;
    const fresh = observe(() => stage('b.aip'));
    expect(fresh.shape).toContain('pwned: false');
    let checked = 0;
    fc.assert(
      fc.property(caseA, (a) => {
        fs.writeFileSync(nodePath.join(ws, 'a.aip'), agent(a));
        const before = observe(() => stage('b.aip'));
        stage('a.aip');
        const after = observe(() => stage('b.aip'));
        expectIsolated(a, fresh, before, after);
        checked++;
      }),
      { numRuns: RUNS },
    );
    expect(checked).toBe(RUNS);
  });

  /** a case file of one case of `agentName`, written as `name` */
  const caseFile = (name: string, agentName: string) => {
    const file = nodePath.join(ws, `${name}.contract.toml`);
    fs.writeFileSync(file, `agent = "${agentName}"\n\n[[case]]\nname = "${name}"\nstage = "pre"\nprompt = "Go"\n`);
    return file;
  };
  const probeOf = (c: { result?: { rawResponse: unknown } } | undefined): Observed => ({ shape: 'no result', order: '', identity: '', draw: -1, ...(c?.result?.rawResponse as object), states: [] });

  it('through the contract cases (the `test` command\'s runner, in this process)', () => {
    const b = caseFile('probe', 'b.aip');
    const a = caseFile('attack', 'a.aip');
    const fresh = observe(() => probeOf(runContractFiles([b]).cases[0]));
    let checked = 0;
    fc.assert(
      fc.property(caseA, (code) => {
        fs.writeFileSync(nodePath.join(ws, 'a.aip'), agent(code));
        const before = observe(() => probeOf(runContractFiles([b]).cases[0]));
        const cases = runContractFiles([a, b], {
          onCaseStart: (c) => {
            if (c.name === 'probe') taken = [];
          },
        }).cases;
        expectIsolated(code, fresh, before, { ...probeOf(cases[1]), states: taken });
        checked++;
      }),
      { numRuns: RUNS },
    );
    expect(checked).toBe(RUNS);
  });

  it("through the `test` command's worker: B, A1, B, A2, B... in one worker, the first B on brand-new states", async () => {
    const attacks = fc.sample(caseA, { seed: FC_SEED, numRuns: 6 });
    const files = [caseFile('probe-0', 'b.aip')];
    attacks.forEach((code, i) => {
      fs.writeFileSync(nodePath.join(ws, `a${i}.aip`), agent(code));
      files.push(caseFile(`attack-${i}`, `a${i}.aip`), caseFile(`probe-${i + 1}`, 'b.aip'));
    });
    const r = await runContractFilesIsolated(files, {}, { timeoutMs: 600_000 });
    const probes = attacks.map((_, i) => probeOf(r.cases.find((c) => c.name === `probe-${i + 1}`)));
    const fresh = probeOf(r.cases.find((c) => c.name === 'probe-0'));
    expect(fresh.shape).toContain('pwned: false');
    probes.forEach((after, i) => {
      const context = `case A (FC_SEED=${FC_SEED}, ${ENGINE_NAME}):\n${attacks[i]}`;
      // the states of a worker are not seen from here: identities are not compared
      expectSame(context, fresh, after, false);
      const seeds = seedsOf(attacks[i]!);
      if (seeds.length > 0) expect(drawsAfter(seeds), context).not.toContain(after.draw);
    });
  });
});
