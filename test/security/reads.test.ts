// Attacks 1-3 (escapes by reading): every read of a run goes through one guard that resolves symlinks.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { runCli } from '../helpers/cli.ts';
import { afterAll, arena, SECRET, type Arena } from './helpers.ts';

let a: Arena;
let before: Record<string, string>;
beforeEach(() => {
  a = arena();
  fs.writeFileSync(nodePath.join(a.root, 'secret.lua'), `return "${SECRET}"`);
  fs.writeFileSync(nodePath.join(a.root, 'outside.aip'), afterAll(`return "${SECRET}"`));
  fs.symlinkSync('..', nodePath.join(a.ws, 'up'));
  fs.symlinkSync('../secret.txt', nodePath.join(a.ws, 'link.txt'));
  before = a.disk();
});
afterEach(() => {
  // nothing on disk changed, whatever the attack did
  expect(a.disk()).toEqual(before);
  a.cleanup();
});

/** Runs `code` as the After All of a workspace agent; returns its value (Lua errors caught by the code itself). */
function attack(code: string): unknown {
  a.write('attacker.aip', afterAll(code));
  before = a.disk();
  const sim = new Simulator({ workspaceDir: a.ws });
  return sim.run({ name: 'attacker', baseDir: a.ws }).afterAll;
}

const tryAll = (calls: Record<string, string>) =>
  `local out = {}\n` +
  Object.entries(calls)
    .map(([k, call]) => `do local ok, r = pcall(function() return ${call} end); out.${k} = ok and tostring(type(r) == 'table' and #r or r) or tostring(r) end`)
    .join('\n') +
  '\nreturn out';

describe('a planted .aipack-base agent', () => {
  it('cannot save outside the simulated base dir by naming .aipack-base', () => {
    const r = attack(tryAll({ save: `aip.file.save("/x.aipack-base.aip", "x")`, save2: `aip.file.save("${a.root}/y.aipack-base/z.aip", "x")` })) as Record<string, string>;
    expect(r.save).toMatch(/Save file protection \(simulator\) - The path `\/x\.aipack-base\.aip` is outside the workspace/);
    expect(r.save2).toMatch(/Save file protection \(simulator\)/);
  });

  it('an agent planted in the simulated base dir runs, but its folder opens nothing outside', () => {
    const planted = afterAll(`return aip.file.load("${a.secret}").content`);
    const r = attack(
      `aip.file.save(CTX.BASE_AIPACK_DIR .. "/evil.aip", ${JSON.stringify(planted)})\n` +
        `local ok, err = pcall(aip.agent.run, CTX.BASE_AIPACK_DIR .. "/evil.aip")\nreturn tostring(err)`,
    );
    expect(r).toMatch(/Read protection \(simulator\) - The path `.*secret\.txt` is outside the workspace/);
    expect(r).not.toContain(SECRET);
  });
});

describe('symlinks inside the workspace', () => {
  it('file functions, dofile, loadfile and require do not follow a link out', () => {
    const r = attack(
      tryAll({
        load: `aip.file.load("up/secret.txt").content`,
        load_link: `aip.file.load("link.txt").content`,
        list_load: `aip.file.list_load("up/*.txt")`,
        exists: `aip.path.exists("up/secret.txt")`,
        first: `aip.file.first("up/*.txt")`,
        dofile: `dofile("up/secret.lua")`,
        loadfile: `select(2, loadfile("up/secret.lua"))`,
        require: `(function() package.path = "up/?.lua;" .. package.path; return require("secret") end)()`,
      }),
    ) as Record<string, string>;
    expect(r.load).toMatch(/Read protection \(simulator\)/);
    expect(r.load_link).toMatch(/Read protection \(simulator\)/);
    expect(r.list_load).toMatch(/^0$|Read protection \(simulator\)/);
    expect(r.exists).toBe('false');
    expect(r.first).toMatch(/^nil$|Read protection \(simulator\)/);
    expect(r.dofile).toMatch(/cannot open up\/secret\.lua/);
    expect(r.loadfile).toMatch(/cannot open up\/secret\.lua/);
    expect(r.require).toMatch(/module 'secret' not found/);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('a listing of ** does not walk through a link that leads out', () => {
    const r = attack(`local out = {} for _, f in ipairs(aip.file.list("**/*.txt")) do out[#out + 1] = f.path end return table.concat(out, ",")`);
    expect(r).toBe('');
  });

  it('a pack dir linked out of the workspace is not a pack', () => {
    fs.mkdirSync(nodePath.join(a.root, 'evilpack'));
    fs.writeFileSync(nodePath.join(a.root, 'evilpack', 'main.aip'), afterAll(`return "${SECRET}"`));
    fs.mkdirSync(nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'x'), { recursive: true });
    fs.symlinkSync(nodePath.join(a.root, 'evilpack'), nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'x', 'y'));
    const r = attack(`local ok, err = pcall(aip.agent.run, "x@y") return tostring(err)`);
    expect(r).toMatch(/No aipack matches for x@y/);
  });
});

describe('agents outside the workspace and the packs', () => {
  it('aip.agent.run by absolute path neither runs nor tells whether the file exists', () => {
    const r = attack(
      tryAll({ there: `aip.agent.run("${a.root}/outside.aip")`, missing: `aip.agent.run("${a.root}/missing.aip")`, rel: `aip.agent.run("up/outside")` }),
    ) as Record<string, string>;
    expect(r.there).toMatch(/is outside the workspace .* a simulated run only runs agents from them/);
    expect(r.missing.replaceAll('missing', 'outside')).toBe(r.there);
    expect(r.rel).toMatch(/is outside the workspace/);
  });

  it('run-agent refuses an agent outside the workspace with a clear error', async () => {
    const r = await runCli(['run-agent', nodePath.join(a.root, 'outside.aip'), '--workspace', a.ws, '--json'], a.ws);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatch(/outside the workspace/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });
});

describe('the harness copies an agent folder through the read guard', () => {
  it('a symlink in the agent lua/ dir leading outside fails the preparation, and the outside file is never read', () => {
    a.write('agents/sub.aip', afterAll('return 1'));
    fs.mkdirSync(nodePath.join(a.ws, 'agents', 'lua'));
    fs.symlinkSync(a.secret, nodePath.join(a.ws, 'agents', 'lua', 'stolen.lua'));
    before = a.disk();
    expect(() => prepareAgent('agents/sub.aip', a.ws)).toThrow(/agent: agents\/lua\/stolen\.lua is a symlink leading outside .*agents \(the harness copies only/);
  });

  it('a symlinked directory leading outside fails too; links inside the folder, and a loop, are fine', () => {
    a.write('agents/sub.aip', afterAll('return 1'));
    a.write('agents/lua/util.lua', 'return 1');
    fs.symlinkSync('..', nodePath.join(a.ws, 'agents', 'lua', 'loop'));
    before = a.disk();
    const ok = prepareAgent('agents/sub.aip', a.ws);
    expect([...ok.files.keys()].filter((k) => k.endsWith('util.lua'))).toEqual(['agents/lua/util.lua']);
    fs.symlinkSync(a.root, nodePath.join(a.ws, 'agents', 'lua', 'host'));
    before = a.disk();
    expect(() => prepareAgent('agents/sub.aip', a.ws)).toThrow(/agents\/lua\/host is a symlink leading outside/);
  });

  it('a support path keeps its content inside itself', () => {
    a.write('agents/sub.aip', afterAll('return 1'));
    a.write('shared/a.lua', 'return 1');
    fs.symlinkSync(a.secret, nodePath.join(a.ws, 'shared', 'b.lua'));
    before = a.disk();
    expect(() => prepareAgent('agents/sub.aip', a.ws, ['shared'])).toThrow(/support\[1\]: shared\/b\.lua is a symlink leading outside/);
  });
});
