// A case taken from the pool sees a state as new, for anything Lua can observe: values the prelude made (the
// metatable of `aip` error objects) and what is reachable from them, the PRNG, the collector's mode and the
// iteration order of library tables. Each attack runs as a stage, then a probe stage whose result must equal the
// probe's result before the attack.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';

const LUA54 = process.env.CODER_SUBAGENTS_ENGINE === 'lua54';
let ws: string;
const agent = (name: string, code: string) => writeFileSync(nodePath.join(ws, `${name}.aip`), `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`);
const run = (name: string) => new Simulator({ workspaceDir: ws }).run({ name, baseDir: ws }).afterAll;

beforeAll(() => {
  ws = mkdtempSync(nodePath.join(os.tmpdir(), 'isolation-'));
  mkdirSync(nodePath.join(ws, '.aipack'));
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

/**
 * The probe's result before the attack and after it; within a chain of stages, after a stage that changes nothing
 * and after the attack. (A nested stage runs on another state than its caller's, whose seeds of string hashing,
 * and so its tables' iteration order on lua54, are its own, as two new states' are.)
 */
function attackThenProbe(attack: string, probe: string) {
  agent('attack', attack + '\nreturn true');
  agent('nothing', 'return true');
  agent('probe', probe);
  agent('chain', 'aip.agent.run("attack")\nreturn aip.agent.run("probe").after_all');
  agent('chain-nothing', 'aip.agent.run("nothing")\nreturn aip.agent.run("probe").after_all');
  const before = run('probe');
  run('attack');
  const after = run('probe');
  const chainedBefore = run('chain-nothing');
  const chained = run('chain');
  return { before, after, chainedBefore, chained };
}

const AIP_ERROR = 'local ok, e = pcall(aip.json.parse, "{")';

describe('values the prelude made', () => {
  it.each([
    ['__tostring of the aip error metatable', `${AIP_ERROR}\ngetmetatable(e).__tostring = function() aip.file.save("pwned.txt", "x") return "hijacked" end`],
    ['__index added to it', `${AIP_ERROR}\ngetmetatable(e).__index = function() return "leak" end`],
    ['__name changed', `${AIP_ERROR}\ngetmetatable(e).__name = "Mine"`],
    ['a key stored in it (a cross-case channel)', `${AIP_ERROR}\ngetmetatable(e).channel = "from A"`],
    ['a metatable set on it', `${AIP_ERROR}\nsetmetatable(getmetatable(e), { __index = function() return "meta" end })`],
  ])('%s is gone for the next case', (_label, attack) => {
    const probe = `${AIP_ERROR}\nlocal mt = getmetatable(e)\nreturn { text = tostring(e), field = tostring(e.nothing), name = tostring(mt.__name), channel = tostring(mt.channel), meta = tostring(getmetatable(mt)), pwned = aip.path.exists("pwned.txt") }`;
    const r = attackThenProbe(attack, probe);
    expect(r.before).toMatchObject({ field: 'nil', channel: 'nil', pwned: false });
    expect(r.after).toEqual(r.before);
    expect(r.chained).toEqual(r.chainedBefore);
  });
});

describe('the PRNG', () => {
  it('a seed set by one case does not carry to the next', () => {
    // the attack seeds, notes the first value of that seed, and seeds again: the next case would draw it
    agent('seed', 'math.randomseed(42)\nlocal v = math.random()\nmath.randomseed(42)\nreturn v');
    agent('draw', 'return math.random()');
    const seeded = run('seed');
    const draws = [run('draw')];
    for (let i = 0; i < 3; i++) {
      run('seed');
      draws.push(run('draw'));
    }
    expect(draws).not.toContain(seeded);
  });

  it('a case that seeds itself draws the same as alone, whatever ran before', () => {
    agent('own-seed', 'math.randomseed(7)\nreturn { math.random(), math.random(1, 1000) }');
    agent('other-seed', 'math.randomseed(99)\nmath.random()\nreturn true');
    const alone = run('own-seed');
    run('other-seed');
    expect(run('own-seed')).toEqual(alone);
  });
});

describe.runIf(LUA54)("the collector's mode (lua54)", () => {
  it.each([
    ['stopped', 'collectgarbage("stop")'],
    ['generational', 'collectgarbage("generational", 5, 5)'],
    ['incremental with other parameters', 'collectgarbage("incremental", 1000, 10, 2)'],
  ])('%s does not carry over', (_label, attack) => {
    const r = attackThenProbe(attack, 'return { running = collectgarbage("isrunning"), mode = collectgarbage("incremental") }');
    expect(r.before).toEqual({ running: true, mode: 'incremental' });
    expect(r.after).toEqual(r.before);
    expect(r.chained).toEqual(r.chainedBefore);
  });
});

describe('the iteration order of library tables', () => {
  const ORDER = 'local out = {}\nfor _, lib in ipairs({ string, table, math, aip.json, package.loaded }) do\n  local keys = {}\n  for k in pairs(lib) do keys[#keys + 1] = tostring(k) end\n  out[#out + 1] = table.concat(keys, ",")\nend\nreturn out';
  it.each([
    ['one key removed and added again', 'local f = string.len\nstring.len = nil\nif collectgarbage then collectgarbage() end\nstring.len = f'],
    [
      'every key removed and added again in reverse order',
      'for _, lib in ipairs({ string, table, math }) do\n  local saved = {}\n  for k, v in pairs(lib) do saved[#saved + 1] = { k, v } end\n  for _, p in ipairs(saved) do lib[p[1]] = nil end\n  if collectgarbage then collectgarbage() end\n  for i = #saved, 1, -1 do lib[saved[i][1]] = saved[i][2] end\nend',
    ],
    ['the same, on an aip namespace', 'local saved = {}\nfor k, v in pairs(aip.json) do saved[#saved + 1] = { k, v } end\nfor _, p in ipairs(saved) do aip.json[p[1]] = nil end\nif collectgarbage then collectgarbage() end\nfor i = #saved, 1, -1 do aip.json[saved[i][1]] = saved[i][2] end'],
    ['with rawset', 'local f = rawget(math, "floor")\nrawset(math, "floor", nil)\nif collectgarbage then collectgarbage() end\nrawset(math, "floor", f)'],
  ])('%s: the next case iterates as before', (_label, attack) => {
    const r = attackThenProbe(attack, ORDER);
    expect(r.after).toEqual(r.before);
    expect(r.chained).toEqual(r.chainedBefore);
  });
});
