// Attacks 16-18: every failure exits non-zero with a one-line cause, --json always prints its object.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { afterAll, arena, type Arena } from './helpers.ts';
import { HANG_TEST_MS } from '../helpers/hang-guard.ts';

// each test spawns the CLI: its start alone takes tens of seconds on a loaded machine, and none is about speed
vi.setConfig({ testTimeout: HANG_TEST_MS });

let a: Arena;
beforeEach(() => (a = arena()));
afterEach(() => a.cleanup());

const prompt = (meta: string) => a.write('.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\n' + meta + '\n```\n\nFix it.\n\n====\n');
const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at \S+ \(|node:internal/);

describe('a run that did not do what was asked exits 1', () => {
  it.each([
    ['invalid TOML in the meta block', 'sub_agents = [', /meta block/],
    ['sub_agents = 5', 'sub_agents = 5', /sub_agents must be a list/],
    ['options = { model = 5 }', 'sub_agents = [{ name = "a.aip", options = { model = 5 } }]', /option 'model' must be a string/],
  ])('%s', async (_label, meta, why) => {
    prompt(meta);
    a.write('a.aip', '# Before All\n\n```lua\nreturn nil\n```\n');
    const before = a.disk();
    const r = await runCli(['run', '--json'], a.ws);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).message).toMatch(why);
    expect(r.stderr).toMatch(/^error: the run was skipped \(exit 1; AIPack would only skip, but nothing the prompt file asks was done\): /);
    expect(a.disk()).toEqual(before);
  });

  it('an empty instruction stays a plain skip (exit 0)', async () => {
    const r = await runCli(['run'], a.ws);
    expect(r.code).toBe(0);
  });
});

describe('attacks 17-18: output and raw errors', () => {
  it('--json prints an object for usage errors too', async () => {
    const r = await runCli(['run-agent', 'x.aip', '--json', '--workspace', `${a.root}/missing`], a.ws);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: `--workspace ${a.root}/missing: no such directory`, exit_code: 2 });
  });

  it('test --reporter json (either spelling) prints an object for usage errors too', async () => {
    for (const flags of [['--reporter', 'json'], ['--reporter=json']]) {
      const r = await runCli(['test', 'missing.contract.toml', ...flags], a.ws);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(JSON.parse(r.stdout), flags.join(' ')).toMatchObject({ exit_code: 2 });
    }
  });

  it('init with a 300-character name: one line saying the name is too long', async () => {
    const r = await runCli(['init', 'x'.repeat(300)], a.ws);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/a file name in the path is too long \(ENAMETOOLONG\)/);
    noStack(r.stderr);
  });
});

describe('a Lua key named __proto__', () => {
  it('is kept as an ordinary key', async () => {
    a.write('proto.aip', '# After All\n\n```lua\nreturn { __proto__ = "kept", other = 1 }\n```\n');
    const r = await runCli(['run-agent', 'proto.aip', '--json'], a.ws);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).after_all).toEqual(JSON.parse('{"__proto__":"kept","other":1}'));
  });
});

describe('raw errors become clear messages', () => {
  it('the depth limit is reported once, with the chain, not wrapped by every level', async () => {
    a.write('self.aip', afterAll('return aip.agent.run("self.aip")'));
    const r = await runCli(['run-agent', 'self.aip'], a.ws);
    expect(r.code).toBe(1);
    expect(r.stderr.match(/nested deeper than/g)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/Failed to run agent/);
    expect(r.stderr).toMatch(/aip\.agent\.run nested deeper than 8 levels: self\.aip( -> self\.aip){9}\n/);
  });

  it("handlebars' own hook names are plain missing variables, and prototype names print nothing on the console", async () => {
    a.write('hbs.aip', '# Data\n\n```lua\nreturn { x = 1 }\n```\n\n# Instruction\n\n[{{helperMissing}}|{{blockHelperMissing}}|{{hasOwnProperty}}|{{constructor.name}}|{{data.x}}]\n');
    a.write('ai.toml', '[[response]]\nmatch = "\\\\[\\\\|\\\\|\\\\|\\\\|1\\\\]"\ncontent = "seen"\n');
    const r = await runCli(['run-agent', 'hbs.aip', '--ai', 'ai.toml', '--json'], a.ws);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).outputs).toEqual(['seen']);
  });
});
