import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaseFileError, loadContractFile } from '../../src/harness/case-file.ts';
import { checkCase, runCase, runContractFile } from '../../src/harness/run-case.ts';
import { runSuite } from '../../src/harness/suite.ts';
import { summaryLine } from '../../src/harness/reporters/human.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

/** Writes a case file next to copies of the fixture agents and runs it. */
function run(toml: string, strict = false) {
  const dir = tmpDir(true);
  const file = write(dir, 'agents/t.contract.toml', toml);
  return runContractFile(file, { strict });
}

const only = (toml: string, strict = false) => {
  const r = run(toml, strict);
  expect(r.cases).toHaveLength(1);
  return r.cases[0];
};

describe('the fixture case files', () => {
  it('all pass (one is skipped)', () => {
    const r = runSuite([AGENTS]);
    expect(r.errors).toEqual([]);
    const failed = r.cases.filter((c) => c.status === 'failed');
    expect(failed.map((c) => `${c.name}: ${c.message}`)).toEqual([]);
    expect(r.passed).toBe(13);
    expect(r.skipped).toBe(1);
    expect(summaryLine(r)).toBe('13 passed, 0 failed, 1 skipped');
    expect(summaryLine({ ...r, errors: ['x: bad'] })).toBe('13 passed, 0 failed, 1 skipped, 1 case file not run (see the error above)');
    expect(summaryLine({ passed: 0, failed: 0, skipped: 0, errors: ['a', 'b'] })).toBe('0 passed, 0 failed, 2 case files not run (see the errors above)');
    const stages = new Set(r.cases.map((c) => c.stage));
    expect([...stages].sort()).toEqual(['post', 'post_task', 'pre', 'pre_task']);
  });
});

describe('expectations', () => {
  it('wrong params and prompts fail with a key-level diff naming each key', () => {
    const c = only(`agent = "prompt-refiner.aip"
[[case]]
name = "wrong"
prompt = "Fix"
params = { model = "flash" }
config = { focus = "auth" }
[case.expect]
params = { model = "pro", context_globs = ["src/auth/**"], structure_globs = [], knowledge_globs = [], write_mode = true }
prompts = ["Fix", "Focus: billing"]
`);
    expect(c.status).toBe('failed');
    expect(c.message).toBe(
      [
        'params.model: expected "pro", got "flash"',
        'params.write_mode: missing (expected true)',
        'prompts[2]: expected "Focus: billing", got "Focus: auth"',
      ].join('\n'),
    );
  });

  it('params_contains checks only the keys it names', () => {
    const ok = only(`agent = "prompt-refiner.aip"
[[case]]
name = "contains"
params = { model = "flash", top_p = 0.5 }
[case.expect]
params_contains = { model = "flash" }
`);
    expect(ok.status).toBe('passed');
    const bad = only(`agent = "prompt-refiner.aip"
[[case]]
name = "contains"
params = { model = "flash" }
[case.expect]
params_contains = { model = "flash", context_globs = ["lib/**"], temperature = 1 }
`);
    expect(bad.message).toBe(
      ['params.context_globs[1]: expected "lib/**", got "src/app/**"', 'params.temperature: expected 1, got nil'].join('\n'),
    );
  });

  it('a multi-line prompt differs with a line diff', () => {
    const c = only(`agent = "prompt-refiner.aip"
[[case]]
name = "text"
prompt = "Fix the login form\\nand the signup form"
[case.expect]
prompt = "Fix the login form\\nand the signup page\\n\\nFocus: app"
`);
    expect(c.message).toBe(
      [
        'prompt: text differs (- expected, + actual):',
        '    Fix the login form',
        '  - and the signup page',
        '  + and the signup form',
        '    ',
        '    Focus: app',
      ].join('\n'),
    );
  });

  it('unchanged: passes for a nil response, fails naming what changed', () => {
    const c = only(`agent = "answer-cleaner.aip"
[[case]]
name = "clean"
stage = "post_task"
response = "fine"
[case.expect]
unchanged = true
`);
    expect(c.status).toBe('passed');
    const changed = only(`agent = "prompt-refiner.aip"
[[case]]
name = "changes"
prompt = "Fix"
[case.expect]
unchanged = true
`);
    expect(changed.message).toBe('unchanged: expected no change, but the stage changed params (changed context_globs), prompts (now ["Fix","Focus: app"])');
    const nothing = only(`agent = "answer-cleaner.aip"
[[case]]
name = "expects a change"
stage = "post_task"
response = "fine"
[case.expect]
unchanged = false
`);
    expect(nothing.message).toBe('unchanged = false: expected a change, but the stage changed nothing');
  });

  it('response (post_task) and files are compared', () => {
    const c = only(`agent = "summary-writer.aip"
[[case]]
name = "files"
stage = "post"
responses = [{ task_num = 1, content = "x" }]
files = { "keep.md" = "k" }
[case.expect]
files = { "coder-summary.md" = "# Coder summary\\n\\n- task 1: 2 file(s) changed\\n", "keep.md" = "k", "other.md" = "o" }
`);
    expect(c.message).toBe(
      [
        'files["coder-summary.md"]: text differs (- expected, + actual):',
        '    # Coder summary',
        '    ',
        '  - - task 1: 2 file(s) changed',
        '  + - task 1: 0 file(s) changed',
        'files["other.md"]: missing (expected "o")',
      ].join('\n'),
    );
    const r = only(`agent = "answer-cleaner.aip"
[[case]]
name = "response"
stage = "post_task"
response = "a\\nDEBUG: x"
[case.expect]
response = "b"
`);
    expect(r.message).toBe('response: expected "b", got "a"');
  });

  it('error: matches the failure message, and fails when the stage succeeds or fails differently', () => {
    const ok = only(`agent = "failing.aip"
[[case]]
name = "fails"
[case.expect]
error = "no ticket configured"
`);
    expect(ok.status).toBe('passed');
    const other = only(`agent = "failing.aip"
[[case]]
name = "fails differently"
[case.expect]
error = "^something else$"
`);
    expect(other.message).toBe(
      'error: expected a match for /^something else$/, got:\n  Sub-agent [failing.aip] failed: no ticket configured\n  Details: add ticket = "ABC-1" to the entry',
    );
    const succeeded = only(`agent = "failing.aip"
[[case]]
name = "succeeds"
config = { ticket = "T-1" }
[case.expect]
error = "no ticket"
`);
    expect(succeeded.message).toBe('expected the stage to fail with an error matching /no ticket/, but it succeeded');
  });

  it('an unexpected failure fails the case with the message', () => {
    const c = only(`agent = "failing.aip"
[[case]]
name = "no ticket"
`);
    expect(c.message).toBe('the stage failed: Sub-agent [failing.aip] failed: no ticket configured\nDetails: add ticket = "ABC-1" to the entry');
  });
});

describe('checks on every case', () => {
  it('a contract violation fails the case with the contract message, even without expectations', () => {
    const c = only(`agent = "wrong-type.aip"
[[case]]
name = "no expectations"
prompt = "Fix"
`);
    expect(c.status).toBe('failed');
    expect(c.message).toBe('the stage failed: Sub-agent [wrong-type.aip] returned an invalid response: coder_prompts[2] must be a string, got number');
  });

  it('warnings are reported; --strict makes them fail the case', () => {
    const toml = `agent = "param-dropper.aip"
[[case]]
name = "drops"
params = { write_mode = true }
`;
    const lax = only(toml);
    expect(lax.status).toBe('passed');
    expect(lax.warnings).toHaveLength(4);
    expect(lax.warnings[0]).toMatch(/^coder_params drops write_mode/);
    const strict = only(toml, true);
    expect(strict.status).toBe('failed');
    expect(strict.message).toBe('--strict: the 4 warnings below fail this case');
    expect(strict.warnings).toEqual(lax.warnings);
  });

  it('a case without warnings passes under --strict', () => {
    expect(only(`agent = "prompt-refiner.aip"\n[[case]]\nname = "fine"\n`, true).status).toBe('passed');
  });
});

describe('expect.files never reads a host file', () => {
  // a secret beside the case's folder, named absolutely and with ..: the case file is refused before anything runs
  it.each([['absolute', (secret: string) => secret], ['climbing', () => '../../../../../../../../secret.txt']])('a %s key is a harness error, the host file unread', (_kind, keyOf) => {
    const dir = tmpDir(true);
    const secret = write(dir, 'secret.txt', 'TOP SECRET');
    const key = keyOf(secret);
    const file = write(dir, 'agents/t.contract.toml', `agent = "prompt-refiner.aip"\n[[case]]\nname = "leak"\n[case.expect]\nfiles = { ${JSON.stringify(key)} = "guess" }\n`);
    expect(() => runContractFile(file)).toThrow(CaseFileError);
    expect(() => runContractFile(file)).toThrow(`${file}: case #1 "leak": expect.files.${JSON.stringify(key)}: expected a workspace-relative path (no leading /, no ..)`);
  });

  it('checkCase on a hand-built case reports the key instead of reading it', () => {
    const dir = tmpDir(true);
    const secret = write(dir, 'secret.txt', 'TOP SECRET');
    const file = loadContractFile(write(dir, 'agents/t.contract.toml', 'agent = "prompt-refiner.aip"\n[[case]]\nname = "ok"\n'));
    const c = file.cases[0]!;
    const r = runCase(file, c);
    expect(r.status).toBe('passed');
    const forged = { ...c, expect: { files: { [secret]: 'guess', '../secret.txt': 'guess' } } };
    const problems = checkCase(forged, r.result!);
    expect(problems).toEqual([
      `files[${JSON.stringify(secret)}]: expected a workspace-relative path (no leading /, no ..)`,
      'files["../secret.txt"]: expected a workspace-relative path (no leading /, no ..)',
    ]);
    // and the result's own reader refuses such a path
    expect(() => r.result!.readFile(secret)).toThrow(/Read protection/);
    expect(() => r.result!.readFile('../../../../../../../../../etc/hostname')).toThrow(/Read protection/);
  });
});

describe('runCase and runContractFile', () => {
  it('runCase takes a path and a case name', () => {
    const r = runCase(nodePath.join(AGENTS, 'task-tuner.contract.toml'), 'cools down multi-file tasks');
    expect(r.status).toBe('passed');
    expect(r.stage).toBe('pre_task');
    expect(r.result?.params.temperature).toBe(0);
    expect(() => runCase(nodePath.join(AGENTS, 'task-tuner.contract.toml'), 'nope')).toThrow(/no case named "nope" \(cases: "cools down/);
  });

  it('a skipped case is not run', () => {
    const r = runCase(nodePath.join(AGENTS, 'prompt-refiner.contract.toml'), 'not ready yet');
    expect(r).toMatchObject({ status: 'skipped', warnings: [] });
    expect(r.result).toBeUndefined();
  });

  it('filters cases by name or path; filtered cases are left out', () => {
    const file = nodePath.join(AGENTS, 'prompt-refiner.contract.toml');
    expect(runContractFile(file, { filter: 'KEEPS' }).cases.map((c) => c.name)).toEqual(['keeps the params it was given']);
    expect(runContractFile(file, { filter: 'refiner.contract' }).cases).toHaveLength(3);
    expect(runContractFile(file, { filter: 'nothing like it' }).cases).toEqual([]);
  });

  it('reports what to watch: the case file, the agent, its lua dir', () => {
    const r = runContractFile(nodePath.join(AGENTS, 'prompt-refiner.contract.toml'), { filter: 'keeps' });
    expect(r.watch).toEqual([
      nodePath.join(AGENTS, 'prompt-refiner.contract.toml'),
      nodePath.join(AGENTS, 'prompt-refiner.aip'),
      nodePath.join(AGENTS, 'lua'),
    ]);
  });

  it('an agent that does not exist is a CaseFileError naming the file and the key', () => {
    const dir = tmpDir();
    const file = write(dir, 'x.contract.toml', 'agent = "missing.aip"\n[[case]]\nname = "a"\n');
    let err: unknown;
    try {
      runContractFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CaseFileError);
    expect((err as CaseFileError).message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: agent: 'missing\\.aip' not found`));
    expect((err as CaseFileError).key).toBe('agent');
  });

  it('a suite records malformed files as errors and still runs the others', () => {
    const dir = tmpDir(true);
    write(dir, 'agents/bad.contract.toml', 'agent = "prompt-refiner.aip"\n[[case]]\nname = "x"\npromt = "y"\n');
    write(dir, 'agents/good.contract.toml', 'agent = "prompt-refiner.aip"\n[[case]]\nname = "x"\n');
    const r = runSuite([nodePath.join(dir, 'agents', 'bad.contract.toml'), nodePath.join(dir, 'agents', 'good.contract.toml')]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatch(/bad\.contract\.toml: case #1 "x": unknown key 'promt' \(did you mean 'prompt'\?\)/);
    expect(r.passed).toBe(1);
  });
});

describe('AI answers', () => {
  it('a missing scripted answer fails the case with a hint', () => {
    const c = only(`agent = "ai-refiner.aip"
[[case]]
name = "no answer"
prompt = "fix"
`);
    expect(c.status).toBe('failed');
    expect(c.message).toMatch(/^the stage failed: Sub-agent \[ai-refiner\.aip\] failed: .*no scripted AI response/);
    expect(c.message).toMatch(/\(the sub-agent made more AI calls than the case's ai list answers: it has 0\)$/);
  });

  it('an unused answer is a warning', () => {
    const c = only(`agent = "ai-refiner.aip"
[[case]]
name = "two answers"
prompt = "fix"
ai = ["one", "two"]
[case.expect]
prompt = "one"
`);
    expect(c.status).toBe('passed');
    expect(c.warnings).toEqual(['1 scripted AI answer was not used (ai has 2)']);
  });
});

describe("upstream pro@coder's event form (pack/SUB_AGENTS.md section 7)", () => {
  it('config.on = "end" runs the agent at post, where it reads stage and event', () => {
    const c = only(`agent = "upstream-event.aip"
[[case]]
name = "on end"
config = { on = "end" }
[case.expect]
files = { "seen.txt" = "post end" }
`);
    expect(c.stage).toBe('post');
    expect(c.status).toBe('passed');
    expect(c.warnings).toEqual([]);
  });

  it('config.on = "start" is pre', () => {
    const c = only(`agent = "upstream-event.aip"
[[case]]
name = "on start"
config = { on = ["start"] }
[case.expect]
files = { "seen.txt" = "pre start" }
`);
    expect(c.stage).toBe('pre');
    expect(c.status).toBe('passed');
  });

  it('another event (one a sub-agent emits) is dispatched to the agent: stage pre unless the case says post', () => {
    const pre = only(`agent = "upstream-event.aip"
[[case]]
name = "emitted"
config = { on = "ctx::ready" }
[case.expect]
files = { "seen.txt" = "pre ctx::ready" }
`);
    expect(pre.stage).toBe('pre');
    expect(pre.status).toBe('passed');
    const post = only(`agent = "upstream-event.aip"
[[case]]
name = "emitted at post"
stage = "post"
config = { on = ["start", "review::done"] }
[case.expect]
files = { "seen.txt" = "post review::done" }
`);
    expect(post.status).toBe('passed');
  });

  it('a case stage that on does not map to is a case-file error', () => {
    expect(() =>
      run(`agent = "upstream-event.aip"
[[case]]
name = "mismatch"
stage = "pre"
config = { on = "end" }
`),
    ).toThrow(/config.on "end" runs the agent in post, not in the case's stage pre/);
  });

  it('unknown params and misspelt entry keys are warnings, which --strict fails', () => {
    const toml = `agent = "prompt-refiner.aip"
[[case]]
name = "keys"
params = { udiffx_inst_debug = true, contxt_globs = [] }
config = { enable = false, focus = "auth" }
`;
    const lax = only(toml);
    expect(lax.status).toBe('passed');
    expect(lax.warnings.slice(0, 2)).toEqual([
      "unknown prompt parameter 'contxt_globs': it is ignored",
      "config: unknown key 'enable' (kept, the agent reads it as input.agent_config.enable; put an agent's own settings under config = { ... }, which is never warned about); did you mean 'enabled'?",
    ]);
    expect(only(toml, true).status).toBe('failed');
  });
});

/** Writes agents (path under the temp dir -> text) and a case file next to them, and runs it. */
function runWith(agents: Record<string, string>, toml: string, aipackVersion?: string) {
  const dir = tmpDir(true);
  for (const [rel, text] of Object.entries(agents)) write(dir, rel, text);
  return runContractFile(write(dir, 'agents/t.contract.toml', toml), aipackVersion ? { aipackVersion } : {});
}

const aip = (lua: string) => `# Output\n\n\`\`\`lua\n${lua}\n\`\`\`\n`;

/** An agent written as upstream's README shows: it reads its input and records what it saw. */
const RECORDER = aip(`local p = input.coder_params
local seen = {
  event = input.event, stage = input.stage, prompt = input.coder_prompt, redo_count = input.coder_redo_count,
  globs = p.context_globs, model = p.model, prev = input.sub_agents_prev,
}
aip.file.save("seen.json", aip.json.stringify(seen))
return { coder_params = { context_globs = { "src/**/*.ts" } }, emit_events = { "ctx::ready", "ctx::indexed" }, agent_result = "recorded" }`);

describe('event-form cases: on instead of stage', () => {
  it('on = "start": the input is built as the pack builds it, the partial coder_params are merged', () => {
    const r = runWith({ 'agents/rec.aip': RECORDER }, `agent = "rec.aip"
[[case]]
name = "start"
on = "start"
prompt = "Fix the form"
params = { model = "flash", write_mode = true }
prev = [{ name = "ctx.aip", agent_result = { n = 1 } }]
[case.expect]
params = { model = "flash", write_mode = true, context_globs = ["src/**/*.ts"], structure_globs = [], knowledge_globs = [] }
emit = ["ctx::ready", "ctx::indexed"]
agent_on = ["start"]
`);
    const c = r.cases[0]!;
    expect(c.status, c.message).toBe('passed');
    expect(c.stage).toBe('pre');
    expect(c.event).toBe('start');
    const seen = JSON.parse(c.result!.readFile('seen.json')!);
    expect(seen).toEqual({
      event: 'start', stage: 'pre', prompt: 'Fix the form', redo_count: 0, globs: [], model: 'flash',
      // upstream's history shape
      prev: [{ event: 'start', stage: 'pre', config: { name: 'ctx.aip', enabled: true, on: ['start'] }, agent_result: { n: 1 }, sub_agent_result: { n: 1 } }],
    });
  });

  it('emit and agent_on that differ fail naming what was expected', () => {
    const c = runWith({ 'agents/rec.aip': RECORDER }, `agent = "rec.aip"
[[case]]
name = "wrong"
on = "start"
[case.expect]
emit = ["ctx::ready"]
agent_on = ["start", "end"]
`).cases[0]!;
    expect(c.status).toBe('failed');
    expect(c.message).toBe([
      'emit: expected ["ctx::ready"], got ["ctx::ready","ctx::indexed"]',
      'agent_on: expected ["start","end"], got ["start"]',
    ].join('\n'));
  });

  it('agent_on: a start agent that turns itself into a start+end agent', () => {
    const c = runWith({ 'agents/both.aip': aip('return { agent_on = { "start", "end" } }') }, `agent = "both.aip"
[[case]]
name = "both"
on = "start"
[case.expect]
agent_on = ["start", "end"]
emit = []
`).cases[0]!;
    expect(c.status, c.message).toBe('passed');
  });

  it('an emitted event is dispatched during start by default, during end when the case says so', () => {
    // it records what it saw, and emits nothing (an agent emitting the event it listens to loops to the cap)
    const agents = { 'agents/rec.aip': aip('aip.file.save("seen.json", aip.json.stringify({ event = input.event, stage = input.stage }))') };
    const pre = runWith(agents, `agent = "rec.aip"\n[[case]]\nname = "emitted"\non = "ctx::ready"\n`).cases[0]!;
    expect(pre.status, pre.message).toBe('passed');
    expect(JSON.parse(pre.result!.readFile('seen.json')!)).toMatchObject({ event: 'ctx::ready', stage: 'pre' });
    const post = runWith(agents, `agent = "rec.aip"\n[[case]]\nname = "emitted at end"\non = "review::done"\nduring = "end"\n`).cases[0]!;
    expect(post.status, post.message).toBe('passed');
    expect(post.stage).toBe('post');
    expect(JSON.parse(post.result!.readFile('seen.json')!)).toMatchObject({ event: 'review::done', stage: 'post' });
  });

  it('redo: honoured under the cap, refused at the cap (redo_count is CTX.RUN_FLOW_REDO_COUNT)', () => {
    const agents = { 'agents/again.aip': aip('aip.file.save("count.txt", tostring(input.coder_redo_count))\nreturn { coder_redo = true }') };
    const under = runWith(agents, `agent = "again.aip"\n[[case]]\nname = "under"\non = "end"\nredo_count = 3\n[case.expect]\nredo = true\nfiles = { "count.txt" = "3" }\n`, '0.8.33').cases[0]!;
    expect(under.status, under.message).toBe('passed');
    const capped = runWith(agents, `agent = "again.aip"\n[[case]]\nname = "capped"\non = "end"\nredo_count = 20\n[case.expect]\nredo = true\n`, '0.8.33').cases[0]!;
    expect(capped.status).toBe('failed');
    expect(capped.message).toBe('redo: the agent asked for a redo (coder_redo = true), but the pack starts none: the cap of 20 redos is reached (redo_count = 20)');
    const none = runWith({ 'agents/quiet.aip': aip('return nil') }, `agent = "quiet.aip"\n[[case]]\nname = "quiet"\non = "end"\n[case.expect]\nredo = true\n`).cases[0]!;
    expect(none.message).toBe('redo: expected the pack to start a redo, but the agent did not ask for one (coder_redo = true)');
    // AIPack before 0.8.22 has no redo count: the pack refuses to redo, and a case cannot set the count
    const old = runWith(agents, `agent = "again.aip"\n[[case]]\nname = "old"\non = "end"\n[case.expect]\nredo = false\n`, '0.8.15').cases[0]!;
    expect(old.status, old.message).toBe('passed');
    expect(old.result!.redo?.pin).toMatch(/has no CTX.RUN_FLOW_REDO_COUNT/);
    expect(() => runWith(agents, `agent = "again.aip"\n[[case]]\nname = "count"\non = "end"\nredo_count = 1\n`, '0.8.15')).toThrow(
      'redo_count: CTX.RUN_FLOW_REDO_COUNT exists from AIPack 0.8.22 on; this run simulates 0.8.15 (set aipack_version, or --aipack-version)',
    );
  });

  it('a post agent reads the post input fields as the pack builds them', () => {
    const agents = {
      'agents/post.aip': aip(`local r = input.coder_responses[1]
local refs = {}
for _, ref in ipairs(input.coder_context_file_refs or {}) do refs[#refs + 1] = ref.path end
aip.file.save("post.json", aip.json.stringify({
  extruded = r.content_extruded, ok = r.file_changes_status.success, total = r.file_changes_status.total_count,
  raw = r.content_raw_path, context = refs, stage_form = r.task_num,
}))`),
    };
    const c = runWith(agents, `agent = "post.aip"
[[case]]
name = "post fields"
on = "end"
params = { context_globs = ["src/*.ts"] }
files = { "src/a.ts" = "a", "src/b.ts" = "b", "README.md" = "r" }
responses = [{ task_num = 1, content = "  Done.", files_changed = ["src/a.ts"], file_changes_status = { success = true, total_count = 1, success_count = 1, fail_count = 0, items = [] } }]
`).cases[0]!;
    expect(c.status, c.message).toBe('passed');
    expect(JSON.parse(c.result!.readFile('post.json')!)).toEqual({
      extruded: 'Done.', ok: true, total: 1, raw: '.aipack/.prompt/pro@coder/workbench-default/.cache/last_ai_responses_for_raw.md', context: ['src/a.ts', 'src/b.ts'], stage_form: 1,
    });
  });
});

describe('workbench cases', () => {
  it('a case on workbench::done gets the workbench its params configure, as coder_workbench', () => {
    const agents = {
      'agents/wb.aip': aip(`local wb = input.coder_workbench
return { agent_result = { event = input.event, chat = wb.chat.path, rules = wb.chat.rules_path, data = wb.data_dir } }`),
    };
    const c = runWith(agents, `agent = "wb.aip"
[[case]]
name = "workbench"
on = "workbench::done"
params = { workbench = { chat = true } }
[case.expect]
agent_result = { event = "workbench::done", chat = ".aipack/.prompt/pro@coder/workbench-default/chat.md", rules = ".aipack/.prompt/pro@coder/workbench-default/.cache/_chat-rules.md", data = ".aipack/.prompt/pro@coder/workbench-default/data" }
`).cases[0]!;
    expect(c.status, c.message).toBe('passed');
  });
});

describe('event-form cases: prev in the dispatch chain', () => {
  it('a prev with event = the chain\'s root ran there and emitted the case\'s event: the history is upstream\'s', () => {
    const agents = { 'agents/rec.aip': aip('aip.file.save("prev.json", aip.json.stringify(input.sub_agents_prev))') };
    const c = runWith(agents, `agent = "rec.aip"
[[case]]
name = "emitted after two"
on = "ctx::ready"
prev = [{ name = "my/emitter.aip", event = "start", agent_result = "emitted" }, { name = "my/other.aip", agent_result = 2 }]
`).cases[0]!;
    expect(c.status, c.message).toBe('passed');
    expect(JSON.parse(c.result!.readFile('prev.json')!)).toEqual([
      { event: 'start', stage: 'pre', config: { name: 'my/emitter.aip', enabled: true, on: ['start'] }, agent_result: 'emitted', sub_agent_result: 'emitted' },
      { event: 'ctx::ready', stage: 'pre', config: { name: 'my/other.aip', enabled: true, on: ['ctx::ready'] }, agent_result: 2, sub_agent_result: 2 },
    ]);
  });

  it('a prev event that is neither the case\'s event nor its chain\'s root, or out of order, is refused', () => {
    const toml = (prev: string, on = 'ctx::ready') => `agent = "rec.aip"\n[[case]]\nname = "p"\non = "${on}"\nprev = ${prev}\n`;
    expect(() => runWith({}, toml('[{ name = "a.aip", event = "end" }]'))).toThrow(
      'case #1 "p": prev[1].event: expected "start" (the root of the chain that emits ctx::ready) or "ctx::ready", got "end"',
    );
    expect(() => runWith({}, toml('[{ name = "a.aip", event = "start" }]', 'end'))).toThrow('prev[1].event: expected "end", got "start"');
    expect(() => runWith({}, toml('[{ name = "a.aip" }, { name = "b.aip", event = "start" }]'))).toThrow(
      'prev[2].event: the prevs that ran at start come first (they ran before ctx::ready was emitted)',
    );
    expect(() => runWith({}, `agent = "rec.aip"\n[[case]]\nname = "p"\nstage = "pre"\nprev = [{ name = "a.aip", event = "start" }]\n`)).toThrow(
      'prev[1].event: only in an event-form case (on = "...")',
    );
  });
});

describe('event-form cases: what the always-on checks see', () => {
  it('a partial coder_params is no dropped-keys warning (--strict passes), and unchanged compares the run params, not the view', () => {
    const agents = {
      'agents/part.aip': aip('if input.agent_config.focus == nil then return nil end\nreturn { coder_params = { model = "pro" } }'),
    };
    const r = runWith(agents, `agent = "part.aip"
[[case]]
name = "partial"
on = "start"
params = { model = "flash", write_mode = true }
config = { focus = "x" }
[case.expect]
params_contains = { model = "pro", write_mode = true }
unchanged = false
[[case]]
name = "nothing"
on = "start"
params = { model = "flash" }
[case.expect]
unchanged = true
`);
    expect(r.cases.map((c) => [c.status, c.warnings, c.message])).toEqual([
      ['passed', [], undefined],
      ['passed', [], undefined],
    ]);
  });
});

// What the whole stage produced, and the contract rules every case checks
/** One agent and one case file in a fresh dir; the results of its cases. */
function cases(aip: string, toml: string) {
  const dir = tmpDir();
  write(dir, 'agents/a.aip', aip);
  return runContractFile(write(dir, 'agents/a.contract.toml', `agent = "a.aip"\n${toml}`)).cases;
}

const lua = (code: string) => `# Output\n\n\`\`\`lua\n${code}\n\`\`\`\n`;

describe('the harness checks what the whole stage produced', () => {
  // the first run changes nothing, its sub_agents_next tail (itself again) rewrites model
  const twice = lua(`
if input.agent_config.second then
  local p = input.coder_params
  p.model = "expensive"
  return { coder_params = p }
end
return { sub_agents_next = { { name = input.agent_config.name, second = true } } }`);

  it('unchanged = true fails when a sub_agents_next tail changed the params', () => {
    const [c] = cases(twice, `[[case]]\nname = "n"\nprompt = "x"\n[case.expect]\nunchanged = true\n`);
    expect(c.status).toBe('failed');
    expect(c.message).toBe('unchanged: expected no change, but the stage changed params (added model)');
  });

  it('params and sub_agents_next are those of the stage and of the response', () => {
    const [c] = cases(
      twice,
      `[[case]]\nname = "n"\nprompt = "x"\n[case.expect]\nparams_contains = { model = "expensive" }\nsub_agents_next = [{ name = "a.aip", second = true }]\nunchanged = false\n`,
    );
    expect(c.message).toBeUndefined();
    expect(c.status).toBe('passed');
  });

  it('the sandbox workspace is an ordinary absolute path: nothing says "test" or "sandbox"', () => {
    const [c] = cases(lua('return { agent_result = CTX.WORKSPACE_DIR }'), `[[case]]\nname = "n"\n[case.expect]\nagent_result = "/home/user/project"\n`);
    expect(c.message).toBeUndefined();
    expect(JSON.stringify(c.result?.input)).not.toMatch(/sandbox|coder_subagents/);
  });
});

describe('what a case can state', () => {
  const asks = `# Data

\`\`\`lua
return { path = CTX.WORKSPACE_DIR .. "/src/db.ts" }
\`\`\`

# Instruction

Review file_path="{{data.path}}"

# Output

\`\`\`lua
return { agent_result = { verdict = ai_response.content, n = 2 } }
\`\`\`
`;

  it('scripted answers match the prompt with sandbox paths workspace-relative, as the error shows it', () => {
    const [miss, hit] = cases(
      asks,
      `[[case]]\nname = "miss"\nai = [{ content = "ok", match = "nowhere" }]\n[[case]]\nname = "hit"\nai = [{ content = "ok", match = 'file_path="src/db\\.ts"' }]\n[case.expect]\nagent_result = { verdict = "ok", n = 2 }\n`,
    );
    expect(miss.status).toBe('failed');
    expect(miss.message).toContain('Review file_path="src/db.ts"');
    expect(hit.message).toBeUndefined();
  });

  it('ai_prompts checks the prompts sent to the model, exact or by regex, in order', () => {
    const [exact, regex, wrong] = cases(
      asks,
      [
        '[[case]]\nname = "exact"\nai = ["ok"]\n[case.expect]\nai_prompts = [\'Review file_path="src/db.ts"\']',
        '[[case]]\nname = "regex"\nai = ["ok"]\n[case.expect]\nai_prompts = [{ match = "db\\\\.ts" }]',
        '[[case]]\nname = "wrong"\nai = ["ok"]\n[case.expect]\nai_prompts = [{ match = "^Summarise" }, "second"]',
      ].join('\n'),
    );
    expect(exact.message).toBeUndefined();
    expect(regex.message).toBeUndefined();
    expect(wrong.message).toBe(
      ['ai_prompts: expected 2 prompts sent to the model, got 1', 'ai_prompts[1]: expected a match for /^Summarise/, got:\n  Review file_path="src/db.ts"'].join('\n'),
    );
  });

  it('agent_result differences are reported key by key', () => {
    const [c] = cases(lua('return { agent_result = { verdict = "ok", n = 3 } }'), `[[case]]\nname = "n"\n[case.expect]\nagent_result = { verdict = "ok", n = 2 }\n`);
    expect(c.message).toBe('agent_result.n: expected 2, got 3');
  });

  it('prev seeds sub_agents_prev with the earlier sub-agents and their agent_result', () => {
    const echo = lua('local p = input.sub_agents_prev\nreturn { agent_result = { count = #p, name = p[1].config.name, got = p[1].agent_result, extra = p[1].config.level } }');
    const [c] = cases(
      echo,
      `[[case]]\nname = "n"\nprev = [{ name = "agents/earlier.aip", agent_result = { score = 7, tags = ["a"] }, config = { level = 2 } }]\n[case.expect]\nagent_result = { count = 1, name = "agents/earlier.aip", got = { score = 7, tags = ["a"] }, extra = 2 }\nunchanged = true\n`,
    );
    expect(c.message).toBeUndefined();
    expect(c.status).toBe('passed');
  });

  it('refuses a prev name that is not a workspace-relative .aip path', () => {
    const dir = tmpDir();
    write(dir, 'agents/a.aip', lua('return nil'));
    const file = write(dir, 'agents/a.contract.toml', 'agent = "a.aip"\n[[case]]\nname = "n"\nprev = [{ name = "../x.aip" }]\n');
    expect(() => runContractFile(file)).toThrow(/case #1 "n": prev\[1\]\.name: expected a workspace-relative \.aip path \(no leading \/, no \.\.\), got '\.\.\/x\.aip'/);
  });
});

describe('event-form cases: the post input defaults come from the pack', () => {
  it('content_extruded is the answer as the pack extrudes it: without its change blocks when write_mode is on, the text around them as it is', () => {
    const agents = { 'agents/x.aip': aip('aip.file.save("x.txt", input.coder_responses[1].content_extruded)') };
    const answer = 'Done.\\n\\n<FILE_CHANGES>\\n<FILE_NEW file_path=\\"src/a.ts\\">\\nexport const a = 1;\\n</FILE_NEW>\\n</FILE_CHANGES>\\n';
    const toml = (write: boolean) => `agent = "x.aip"\n[[case]]\nname = "x"\non = "end"\nparams = { write_mode = ${write} }\nresponses = [{ task_num = 1, content = "${answer}" }]\n`;
    const on = runWith(agents, toml(true)).cases[0]!;
    expect(on.status, on.message).toBe('passed');
    expect(on.result!.readFile('x.txt')).toBe('Done.\n\n\n');
    const off = runWith(agents, toml(false)).cases[0]!;
    expect(off.result!.readFile('x.txt')).toBe(answer.replace(/\\n/g, '\n').replace(/\\"/g, '"'));
  });
});

describe("event-form cases: the post file refs are upstream's file infos", () => {
  it('a ref has the fields of aip.file.list (path, name, stem, ext, dir, size), as upstream hands them over', () => {
    const agents = {
      'agents/refs.aip': aip(`local r = input.coder_context_file_refs[1]
aip.file.save("ref.txt", table.concat({ r.path, r.dir, r.name, r.stem, r.ext, tostring(r.size) }, " "))`),
    };
    const c = runWith(agents, `agent = "refs.aip"
[[case]]
name = "refs"
on = "end"
params = { context_globs = ["src/*.ts"] }
files = { "src/greet.ts" = "export {};\\n" }
`).cases[0]!;
    expect(c.status, c.message).toBe('passed');
    expect(c.result!.readFile('ref.txt')).toBe('src/greet.ts src greet.ts greet ts 11');
  });
});
