// Each stage sees a state as new: what a sub-agent changes of the libraries, the string and array metatables,
// package.*, the globals or the `aip` table is gone for the next stage, within a run (a chain of aip.agent.run)
// and across runs, however the engine sets its states up (it reuses them once restored).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';

let ws: string;
const agent = (name: string, code: string) => writeFileSync(nodePath.join(ws, name), `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`);

// what the next stage would notice of each change
const LOOK = `
local arr = aip.json.parse("[1, 2]")
return {
  upper = ("a"):upper(), upper_fn = string.upper("b"), string_custom = tostring(string.custom),
  len = ("abc"):len(), string_add = tostring(getmetatable("").__add), string_index_is_string = getmetatable("").__index == string,
  insert = type(table.insert), pi = math.pi, time = type(os.time()), coroutine_custom = tostring(coroutine.custom),
  utf8_char = type(utf8.char), mymod = tostring(package.loaded.mymod), preload = tostring(package.preload.pre),
  path_nowhere = package.path == "/nowhere/?.lua", leaked = tostring(leaked), print = type(print),
  file_load = type(aip.file.load), aip_custom = tostring(aip.custom), ctx_extra = tostring(CTX.extra),
  array_index = type(getmetatable(arr).__index), array_name = tostring(getmetatable(arr).__name),
  global_meta = tostring(getmetatable(_G)), string_meta = tostring(getmetatable(string)),
  math_custom = tostring(math.custom), utf8_custom = tostring(utf8.custom),
  loaded_string = package.loaded.string == string, loaded_g = package.loaded._G == _G,
}`;

const MUTATE = `
string.upper = function() return "hacked" end
string.custom = 1
getmetatable("").__add = function() return 42 end
getmetatable("").__index = { upper = function() return "HACKED" end, len = function() return -1 end }
table.insert = nil
math.pi = 3
os.time = function() return "never" end
coroutine.custom = true
utf8.char = nil
package.loaded.mymod = { x = 1 }
package.loaded.string = nil
package.preload.pre = function() return "preloaded" end
package.path = "/nowhere/?.lua"
leaked = "yes"
print = nil
aip.file.load = nil
aip.custom = 1
CTX.extra = 1
getmetatable(aip.json.parse("[1]")).__index = function() return "arr-leak" end
getmetatable(aip.json.parse("[1]")).__name = "not-array"
`;

beforeAll(() => {
  ws = mkdtempSync(nodePath.join(os.tmpdir(), 'stage-isolation-'));
  mkdirSync(nodePath.join(ws, '.aipack'));
  agent('look.aip', LOOK);
  // the changes took effect where they were made: the look after them shows each one
  agent('mutate.aip', MUTATE + LOOK);
  // metatables on the globals and on a library too (a state cannot be put back in place then)
  agent('mutate-meta.aip', MUTATE + 'setmetatable(_G, { __index = function() return "meta" end })\nsetmetatable(string, { __metatable = "locked" })\nreturn true');
  agent('chain.aip', 'local changed = aip.agent.run("mutate").after_all\nlocal meta = aip.agent.run("mutate-meta").after_all\nreturn { changed = changed, meta = meta, after = aip.agent.run("look").after_all }');
});
afterAll(() => rmSync(ws, { recursive: true, force: true }));

const run = (name: string) => new Simulator({ workspaceDir: ws }).run({ name, baseDir: ws }).afterAll as Record<string, unknown>;

describe('stage isolation', () => {
  it('a sub-agent that changes the libraries, metatables, package, globals and aip leaves the next stage a new state', () => {
    const fresh = run('look');
    expect(fresh).toMatchObject({ upper: 'A', insert: 'function', pi: Math.PI, leaked: 'nil', array_name: 'array', string_index_is_string: true, loaded_string: true, loaded_g: true });
    const r = run('chain');
    // the changes were made (the check is not blind)
    expect(r.changed).toMatchObject({ upper: 'HACKED', upper_fn: 'hacked', len: -1, insert: 'nil', pi: 3, leaked: 'yes', file_load: 'nil', aip_custom: '1', array_index: 'function', path_nowhere: true });
    expect(r.meta).toBe(true);
    expect(r.after).toEqual(fresh);
  });

  it('across runs: the run after a run that changed everything starts as new', () => {
    const fresh = run('look');
    run('mutate');
    expect(run('look')).toEqual(fresh);
    run('mutate-meta');
    expect(run('look')).toEqual(fresh);
    // and a chain of stages after them
    for (let i = 0; i < 3; i++) run('mutate');
    expect(run('look')).toEqual(fresh);
  });

  // one change at a time: a restore that looks only at what changed must see each kind of change on its own
  it.each([
    ['a value replaced', 'math.pi = 3'],
    ['a value replaced by one of the same type', 'string.upper = string.lower'],
    ['a key added', 'math.custom = 1'],
    ['a key removed', 'table.insert = nil'],
    ['a key removed and put back (the order changes)', 'local f = table.insert\ntable.insert = nil\ntable.insert = f'],
    ['a key removed and another added (same count)', 'utf8.char = nil\nutf8.custom = 1'],
    ['a global added', 'leaked = "yes"'],
    ['a library swapped for another table', 'string = { upper = function() return "X" end }'],
    ['the string metatable', 'getmetatable("").__add = function() return 42 end'],
  ])('%s, alone, is gone for the next stage and the next run', (_label, change) => {
    agent('one-change.aip', change + '\nreturn true');
    agent('one-change-chain.aip', 'aip.agent.run("one-change")\nreturn aip.agent.run("look").after_all');
    const fresh = run('look');
    expect(run('one-change-chain')).toEqual(fresh);
    run('one-change');
    expect(run('look')).toEqual(fresh);
    // a state put back once may be put back again (its entries' order may now differ from the copy's)
    run('one-change');
    run('one-change');
    expect(run('look')).toEqual(fresh);
  });

  it("each stage's package.path is its own agent's, whichever agent the pooled state ran before", () => {
    for (const dir of ['one', 'two']) {
      mkdirSync(nodePath.join(ws, dir, 'lua'), { recursive: true });
      writeFileSync(nodePath.join(ws, dir, 'lua', 'which.lua'), `return "${dir}"`);
    }
    writeFileSync(nodePath.join(ws, 'two', 'leaf.aip'), '# After All\n\n```lua\nreturn { which = require("which"), path = package.path }\n```\n');
    writeFileSync(
      nodePath.join(ws, 'one', 'main.aip'),
      '# After All\n\n```lua\nlocal mine = require("which")\nlocal other = aip.agent.run("../two/leaf").after_all\nlocal again = aip.agent.run("../two/leaf").after_all\nreturn { mine = mine, other = other.which, again = again.which, same_path = other.path == again.path, own_path = package.path ~= other.path }\n```\n',
    );
    const once = () => new Simulator({ workspaceDir: ws }).run({ name: 'one/main', baseDir: ws }).afterAll;
    const expected = { mine: 'one', other: 'two', again: 'two', same_path: true, own_path: true };
    expect(once()).toEqual(expected);
    expect(once()).toEqual(expected);
  });

  it('a stage that fails half-way leaves the next stage a new state', () => {
    agent('mutate-fail.aip', MUTATE + 'error("stop")');
    const fresh = run('look');
    expect(() => run('mutate-fail')).toThrow(/stop/);
    expect(run('look')).toEqual(fresh);
  });
});
