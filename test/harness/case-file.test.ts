import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseFileError, loadContractFile, parseContractFile } from '../../src/harness/case-file.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

const FILE = 'agents/x.contract.toml';

function problem(text: string): CaseFileError {
  try {
    parseContractFile(text, FILE);
  } catch (err) {
    if (err instanceof CaseFileError) return err;
    throw err;
  }
  throw new Error('expected a CaseFileError');
}

const head = 'agent = "x.aip"\n';

describe('parseContractFile', () => {
  it('fills the defaults of a minimal case', () => {
    const f = parseContractFile(`${head}[[case]]\nname = "one"\n`, FILE);
    expect(f.agent).toBe('x.aip');
    expect(f.file).toBe(nodePath.resolve(FILE));
    expect(f.dir).toBe(nodePath.resolve('agents'));
    expect(f.cases).toEqual([
      { name: 'one', index: 1, stage: 'pre', skip: false, prompts: [''], params: {}, config: {}, files: {}, ai: [], task: undefined, response: undefined, responses: undefined, expect: {} },
    ]);
  });

  it('reads every key of a full case', () => {
    const f = parseContractFile(
      `${head}[[case]]
name = "full"
stage = "post_task"
prompts = ["a", "b"]
params = { model = "flash" }
config = { focus = "auth" }
files = { "src/a.ts" = "x" }
ai = ["one", { content = "two", match = "b" }]
task = { num = 2, count = 3, working_files = ["src/a.ts"] }
response = "answer"
skip = true
[case.expect]
response = "answer"
files = { "src/a.ts" = "x" }
`,
      FILE,
    );
    const c = f.cases[0];
    expect(c).toMatchObject({ stage: 'post_task', prompts: ['a', 'b'], skip: true, response: 'answer', task: { num: 2, count: 3 } });
    expect(c.ai).toEqual(['one', { content: 'two', match: 'b' }]);
  });

  it('reports every unknown key of the file at once, one line each, not only the first', () => {
    const e = problem(`${head}[[case]]\nname = "a"\npromt = "x"\n[case.expect]\nbogus = 1\n[[case]]\nname = "b"\n[case.expect]\nunchangd = true\n`);
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.some((l) => l.startsWith(`agents/x.contract.toml: case #1 "a": unknown key 'promt' (did you mean 'prompt'?)`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`agents/x.contract.toml: case #1 "a": expect: unknown key 'bogus'`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`agents/x.contract.toml: case #2 "b": expect: unknown key 'unchangd' (did you mean 'unchanged'?)`))).toBe(true);
  });

  it('names the file, the case and the key of an unknown key, with a suggestion', () => {
    const e = problem(`${head}[[case]]\nname = "ok"\n[[case]]\nname = "adds focus"\npromt = "x"\n`);
    expect(e.message).toMatch(/^agents\/x\.contract\.toml: case #2 "adds focus": unknown key 'promt' \(did you mean 'prompt'\?\)/);
    expect(e.file).toBe(FILE);
    expect(e.caseName).toBe('adds focus');
    expect(e.key).toBe('promt');
  });

  it('suggests keys in expect, task, ai items and at the top level', () => {
    expect(problem(`${head}[[case]]\nname = "a"\n[case.expect]\nparam = {}\n`).message).toContain(
      `case #1 "a": expect: unknown key 'param' (did you mean 'params'?)`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nstage = "pre_task"\ntask = { files = [] }\n`).message).toContain(
      `task: unknown key 'files' (did you mean 'working_files'?)`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nai = [{ contnt = "x" }]\n`).message).toContain(
      `ai[1]: unknown key 'contnt' (did you mean 'content'?)`,
    );
    expect(problem(`agnt = "x.aip"\n[[case]]\nname = "a"\n`).message).toBe(
      `${FILE}: unknown key 'agnt' (did you mean 'agent'?) (allowed: agent, group, support, case)`,
    );
  });

  it('says what type was expected', () => {
    const e = problem(`${head}[[case]]\nname = "a"\nprompts = "x"\n`);
    expect(e.message).toBe(`${FILE}: case #1 "a": prompts: expected an array, got a string`);
    expect(e.key).toBe('prompts');
    expect(problem(`${head}[[case]]\nname = "a"\n[[case]]\nname = "b"\n[case.expect]\nprompts = [1]\n`).message).toBe(
      `${FILE}: case #2 "b": expect.prompts[1]: expected a string, got an integer`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nstage = "during"\n`).message).toBe(
      `${FILE}: case #1 "a": stage: expected one of pre, pre_task, post_task, post, got "during"`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nai = [3]\n`).message).toContain('ai[1]: expected a string, or a table { content');
  });

  it('reports missing keys and cases', () => {
    expect(problem(head).message).toBe(`${FILE}: no [[case]] table: a case file needs at least one case`);
    expect(problem(`${head}[[case]]\nprompt = "x"\n`).message).toBe(`${FILE}: case #1: name: missing (expected a string)`);
    expect(problem(`[[case]]\nname = "a"\n`).message).toBe(`${FILE}: give agent (one sub-agent) or group (a parallel group), not neither`);
  });

  it('reports TOML syntax errors with the line', () => {
    expect(problem(`${head}[[case]\n`).message).toMatch(/^agents\/x\.contract\.toml:2:\d+: invalid TOML: /);
  });

  it('rejects keys that do not belong to the stage, and conflicting keys', () => {
    expect(problem(`${head}[[case]]\nname = "a"\ntask = { num = 1 }\n`).message).toBe(
      `${FILE}: case #1 "a": task: only used in stage pre_task and post_task (this case's stage is pre)`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nstage = "post"\nresponse = "x"\n`).message).toContain('response: only used in stage post_task');
    expect(problem(`${head}[[case]]\nname = "a"\nresponses = []\n`).message).toContain('responses: only used in stage post');
    expect(problem(`${head}[[case]]\nname = "a"\nprompt = "x"\nprompts = ["y"]\n`).message).toContain('prompts: give prompt or prompts, not both');
    expect(problem(`${head}[[case]]\nname = "a"\nconfig = { stages = ["post"] }\n`).message).toContain('config.stages: set by the harness');
    expect(problem(`${head}[[case]]\nname = "a"\nparams = { sub_agents = [] }\n`).message).toContain('params.sub_agents: set by the harness');
    expect(problem(`${head}[[case]]\nname = "a"\nfiles = { "../x" = "" }\n`).message).toContain('files."../x": expected a workspace-relative path');
    expect(problem(`${head}[[case]]\nname = "a"\n[case.expect]\nerror = "(["\n`).message).toContain('expect.error: invalid regex');
    expect(problem(`${head}[[case]]\nname = "a"\n[case.expect]\nerror = "x"\nprompt = "y"\n`).message).toContain(
      'expect.prompt: cannot be combined with expect.error',
    );
    expect(problem(`${head}[[case]]\nname = "a"\n[[case]]\nname = "a"\n`).message).toBe(
      `${FILE}: case #2 "a": name: the same name as case #1 (names must be unique in a file)`,
    );
  });
});

describe('the paths a case names', () => {
  // the keys of the files a case writes and of those it reads back get one check: none may name a host file
  const KEYS = ['/etc/passwd', '../../etc/passwd', 'a/../../x', '..', '\\etc\\passwd', 'C:/x', 'a\\..\\..\\x'];
  it.each(['files', 'expect.files'])('%s: an absolute key or one climbing out is refused, naming the file, the case and the key on one line', (where) => {
    for (const key of KEYS) {
      const table = where === 'files' ? `files = { ${JSON.stringify(key)} = "guess" }\n` : `[case.expect]\nfiles = { ${JSON.stringify(key)} = "guess" }\n`;
      const err = problem(`${head}[[case]]\nname = "a"\n${table}`);
      expect(err.message).toBe(`${FILE}: case #1 "a": ${where}.${JSON.stringify(key)}: expected a workspace-relative path (no leading /, no ..)`);
      expect(err.key).toBe(`${where}.${JSON.stringify(key)}`);
      expect(err.caseName).toBe('a');
    }
  });

  it('an empty key and one holding NUL are refused too', () => {
    expect(problem(`${head}[[case]]\nname = "a"\n[case.expect]\nfiles = { "" = "x" }\n`).message).toBe(
      `${FILE}: case #1 "a": expect.files."": expected a workspace-relative path (no leading /, no ..), got an empty name or a NUL byte`,
    );
    expect(problem(`${head}[[case]]\nname = "a"\nfiles = { "a\\u0000b" = "x" }\n`).message).toContain('files."a\\u0000b": expected a workspace-relative path');
  });

  it('keeps plain relative keys, dots inside names included', () => {
    const f = parseContractFile(`${head}[[case]]\nname = "a"\nfiles = { "src/..a/b..c" = "x" }\n[case.expect]\nfiles = { "./out/x.md" = "y" }\n`, FILE);
    expect(f.cases[0]!.expect.files).toEqual({ './out/x.md': 'y' });
  });

  it('a case name holding a newline stays on one line in the error', () => {
    const err = problem(`${head}[[case]]\nname = "a\\nb"\n[case.expect]\nfiles = { "/etc/passwd" = "x" }\n`);
    expect(err.message).toBe(`${FILE}: case #1 "a\\nb": expect.files."/etc/passwd": expected a workspace-relative path (no leading /, no ..)`);
    expect(err.message).not.toContain('\n');
  });
});

describe('event-form cases (on)', () => {
  const c = (body: string) => problem(`${head}[[case]]\nname = "a"\n${body}`).message;

  it('reads on, during and redo_count: start is pre, end and an event emitted during end are post', () => {
    const f = parseContractFile(
      `${head}[[case]]\nname = "s"\non = "start"\n[[case]]\nname = "e"\non = "end"\nredo_count = 2\n[[case]]\nname = "x"\non = "review::done"\nduring = "end"\n[[case]]\nname = "y"\non = "ctx::ready"\n`,
      FILE,
    );
    expect(f.cases.map((x) => [x.stage, x.event, x.redo_count])).toEqual([
      ['pre', 'start', undefined],
      ['post', 'end', 2],
      ['post', 'review::done', undefined],
      ['pre', 'ctx::ready', undefined],
    ]);
  });

  it('rejects a case mixing on and stage, and unknown events, in one line', () => {
    expect(c('on = "start"\nstage = "pre"\n')).toBe(
      `${FILE}: case #1 "a": on: give on (the event form) or stage (the stage form), not both`,
    );
    expect(c('on = "strat"\n')).toBe(
      `${FILE}: case #1 "a": on: unknown event 'strat' (did you mean 'start'?): expected "start", "end" or an emitted event "ns::name"`,
    );
    expect(c('on = "post"\n')).toContain(`on: unknown event 'post': expected "start", "end" or an emitted event "ns::name"`);
    // the pack sends workbench::done itself, at pre: an unknown event's message offers it
    expect(c('on = "workbench:done"\n')).toContain(`(did you mean 'workbench::done'?)`);
    expect(c('on = "end"\nconfig = { on = "start" }\n')).toContain(`config.on: listens to ["start"], not to the case's event "end"`);
  });

  it('rejects expectations that make no sense for the event', () => {
    expect(c('on = "end"\n[case.expect]\nagent_on = ["end"]\n')).toContain(
      'expect.agent_on: the pack honours agent_on only in the start dispatch chain (this case\'s event end is dispatched at post)',
    );
    expect(c('on = "start"\n[case.expect]\nredo = true\n')).toContain(
      'expect.redo: a redo is asked at post only (on = "end", or an event emitted during end); this case\'s event start is dispatched at pre',
    );
    expect(c('stage = "pre"\n[case.expect]\nemit = []\n')).toContain(
      'expect.emit: only an event-form case (on = "...") emits events; give on instead of stage',
    );
    expect(c('redo_count = 1\nstage = "post"\n')).toContain('redo_count: only an event-form case (on = "...") gets coder_redo_count');
    expect(c('on = "start"\nduring = "end"\n')).toContain('during: only for an emitted event (on = "ns::name"); start is dispatched at pre');
    expect(c('on = "end"\n[case.expect]\nerror = "x"\nemit = []\n')).toContain('expect.emit: cannot be combined with expect.error');
    expect(c('stage = "post"\nresponses = [{ task_num = 1, content = "x", content_extruded = "x" }]\n')).toContain(
      'responses[1].content_extruded: only event-form agents receive it (on = "end")',
    );
  });
});

describe('loadContractFile', () => {
  it('loads a fixture', () => {
    const f = loadContractFile(nodePath.join(AGENTS, 'prompt-refiner.contract.toml'));
    expect(f.agent).toBe('prompt-refiner.aip');
    expect(f.cases.map((c) => c.name)).toEqual(['adds a focus line and a context glob', 'keeps the params it was given', 'not ready yet']);
  });

  it('checks support paths against the disk', () => {
    const dir = tmpDir();
    const file = write(dir, 'a.contract.toml', `${head}support = ["missing-dir"]\n[[case]]\nname = "a"\n`);
    expect(() => loadContractFile(file)).toThrow(/support\[1\]: 'missing-dir' not found/);
  });

  it('names an unreadable file', () => {
    expect(() => loadContractFile('/nonexistent/x.contract.toml')).toThrow(/^\/nonexistent\/x\.contract\.toml: cannot read/);
  });
});
