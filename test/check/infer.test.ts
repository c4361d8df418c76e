import { describe, expect, it } from 'vitest';
import { lintAipFile } from '../../src/check/aip-file.ts';
import { lintLua, type LintSource } from '../../src/check/lint.ts';
import type { SubAgentStage } from '../../src/contract/index.ts';

const lint = (code: string, stages: SubAgentStage[] | undefined, scope: LintSource['scope'] = 'Output', min = '0.8.15') =>
  lintLua({ file: 'a.lua', code, scope, subAgentStages: stages }, { minAipackVersion: min });
const shown = (code: string, stages?: SubAgentStage[], scope: LintSource['scope'] = 'Output', min = '0.8.15') =>
  lint(code, stages, scope, min).map((f) => `${f.line}:${f.column} ${f.rule}${f.severity ? ` (${f.severity})` : ''}: ${f.message}`);

describe('type check: the input of a sub-agent', () => {
  it('reports a misspelt input field with the right one', () => {
    expect(shown('local p = input.coder_parms\nreturn nil', ['pre'])).toEqual([
      "1:17 unknown-field: input.coder_parms: the input of stage pre has no field 'coder_parms'; did you mean coder_params?",
    ]);
  });

  it('says which stages give a field that this stage lacks', () => {
    expect(shown('return { agent_result = input.coder_response.content }', ['pre', 'pre_task'])).toEqual([
      "1:31 unknown-field: input.coder_response: the input of stages pre, pre_task has no field 'coder_response' (only post_task gives it)",
    ]);
  });

  it('follows locals, nested contract tables and list items', () => {
    const code = [
      'local task = input.coder_task',
      'local n = task.nmu',
      'for _, res in ipairs(input.coder_responses) do',
      '  print(res.files_chnged)',
      'end',
      'local first = input.coder_responses[1]',
      'return { agent_result = first.task_nm }',
    ].join('\n');
    expect(shown(code, ['post_task', 'post'])).toEqual([
      "2:16 unknown-field: input.coder_task.nmu: CoderTask has no field 'nmu'; did you mean num?",
      "4:13 unknown-field: input.coder_responses[i].files_chnged: CoderResponsesItem has no field 'files_chnged'; did you mean files_changed?",
      "7:31 unknown-field: input.coder_responses[i].task_nm: CoderResponsesItem has no field 'task_nm'; did you mean task_num?",
    ]);
  });

  it('accepts any key of agent_config and coder_params (open tables), and fields the script sets itself', () => {
    const code = [
      'local focus = input.agent_config.focus or input.agent_config.anything',
      'local m = input.coder_params.model',
      'input.extra = 1',
      'return { agent_result = { input.extra, focus, m, input.sub_agents_prev[1].config.name } }',
    ].join('\n');
    expect(shown(code, ['pre'])).toEqual([]);
  });

  it('leaves input alone when the stage is unknown, in modules, and when a local shadows it', () => {
    expect(shown('return input.whatever')).toEqual([]);
    expect(shown('local input = {}\nreturn input.whatever', ['pre'])).toEqual([]);
    expect(shown('local function f(input) return input.whatever end\nreturn nil', ['pre'])).toEqual([]);
  });
});

describe('type check: the response', () => {
  it('warns about the lax emit_events forms of the event form, naming the stricter form, and runs them as upstream', () => {
    expect(shown('return { emit_events = { "", "plan::ready" } }', ['on:pre' as SubAgentStage])).toEqual([
      '1:10 lax-form (warning): Sub-agent [a.lua] returned an empty name in emit_events: upstream pro@coder drops it, and so does this pack (write emit_events = { "plan::ready" })',
    ]);
    expect(shown('return { emit_events = "plan::ready" }', ['on:pre' as SubAgentStage])).toEqual([
      '1:10 lax-form (warning): Sub-agent [a.lua] returned emit_events as a string: upstream pro@coder ignores it, and so does this pack: nothing is emitted (write emit_events = { "plan::ready" })',
    ]);
    expect(shown('return { emit_events = { "plan::ready" } }', ['on:pre' as SubAgentStage])).toEqual([]);
  });

  it('reports keys that are no response field, with the right one', () => {
    expect(shown('return { coder_promt = "x" }', ['pre'])).toEqual([
      "1:10 response-key: response key 'coder_promt' is not a sub-agent response field; did you mean coder_prompt?",
    ]);
  });

  it('reports keys the stage ignores', () => {
    expect(shown('local r = { agent_result = 1 }\nr.coder_prompts = { "x" }\nreturn r', ['post_task'])).toEqual([
      "2:3 response-key: response key 'coder_prompts' is ignored in stage post_task (only pre, pre_task use it)",
    ]);
    expect(shown('return { coder_response = { content = "" } }', ['pre'])).toEqual([
      "1:10 response-key: response key 'coder_response' is ignored in stage pre (only post_task uses it)",
    ]);
  });

  it('reports coder_prompt and coder_prompts together, at the second one', () => {
    expect(shown('local p = input.coder_prompts\nreturn {\n  coder_prompts = p,\n  coder_prompt = "x",\n}', ['pre'])).toEqual([
      '4:3 response-exclusive: invalid response: coder_prompts and coder_prompt cannot both be given',
    ]);
  });

  it('reports a response value of a plainly wrong type', () => {
    expect(shown('return { coder_prompts = "one", success = "yes", agent_result = 1, error_msg = nil }', ['pre'])).toEqual([
      "1:10 response-type: response key 'coder_prompts' must be string[], got the string \"one\"",
      "1:33 response-type: response key 'success' must be boolean, got the string \"yes\"",
    ]);
    expect(shown('local p = input.coder_prompts\nreturn { coder_prompts = p, coder_params = input.coder_params }', ['pre'])).toEqual([]);
  });

  it('warns about coder_params built without the input params, not when they are copied', () => {
    expect(shown('return { coder_params = { model = "flash" } }', ['pre'])).toEqual([
      '1:10 dropped-params (warning): coder_params replaces all the params, and this table is not built from input.coder_params: every param it does not list (globs, model, ...) is dropped; change a copy of input.coder_params instead',
    ]);
    const clean = [
      'local a = input.coder_params\na.model = "x"',
      'local b = aip.lua.merge({}, input.coder_params, { model = "x" })',
      'local c = {}\nfor k, v in pairs(input.coder_params) do c[k] = v end',
    ];
    for (const [i, build] of clean.entries()) {
      const name = 'abc'[i];
      expect(shown(`${build}\nreturn { coder_params = ${name} }`, ['pre_task']), name).toEqual([]);
    }
  });

  it('checks only the Output and After All results of a sub-agent, at the top level', () => {
    expect(shown('return { nope = 1 }', ['pre'], 'Data')).toEqual([]);
    expect(shown('local function f() return { nope = 1 } end\nreturn f()', ['pre'])).toEqual([]);
    expect(shown('return { nope = 1 }', undefined)).toEqual([]);
    expect(shown('return { nope = 1 }', ['pre'], 'AfterAll')).toHaveLength(1);
  });
});

describe('type check: aip.* calls', () => {
  it('reports too many and too few arguments', () => {
    expect(shown('local files = aip.file.list("*.md", {}, true)\nlocal p = aip.path.join()\nreturn nil')).toEqual([
      '1:15 aip-arity: aip.file.list takes 1 to 2 arguments (include_globs, options?); got 3 arguments',
      '2:11 aip-arity: aip.path.join takes at least 1 argument (base, ...parts); got 0 arguments',
    ]);
  });

  it('accepts overloads, varargs and a trailing call that may give several values', () => {
    const code = [
      'aip.run.pin("a", "text")',
      'aip.run.pin("a", 2, { label = "L", content = "c" })',
      'aip.path.join("a", "b", { "c", "d" }, "e")',
      'aip.path.join(aip.path.split("x/y"))',
      'aip.lua.merge({}, nil, { a = 1 })',
      'utils.text.trim(" a ")',
    ].join('\n');
    expect(shown(code)).toEqual([]);
  });

  it('reports an argument of a plainly wrong type', () => {
    const code = [
      'local rec = aip.file.load("a.md")',
      'aip.path.join(rec)',
      'aip.file.save("a.md", true)',
      'aip.text.truncate("abc", "ten")',
      'aip.file.list("*.md", "src")',
    ].join('\n');
    expect(shown(code)).toEqual([
      '2:15 aip-arg-type: aip.path.join: argument 1 (base) must be string, got a FileRecord table',
      '3:23 aip-arg-type: aip.file.save: argument 2 (content) must be string, got a boolean',
      '4:26 aip-arg-type: aip.text.truncate: argument 2 (max_len) must be integer, got the string "ten"',
      '5:23 aip-arg-type: aip.file.list: argument 2 (options) must be ListOptions or nil, got the string "src"',
    ]);
  });

  it('accepts what mlua converts (numbers as strings, numeric strings as numbers) and unknown values', () => {
    expect(shown('aip.file.load(42)\naip.text.truncate("abc", "10")\nlocal x = os.getenv("X")\naip.file.load(x)\nreturn nil')).toEqual([]);
  });

  it('reports unknown fields of closed tables aip.* returns', () => {
    const code = 'local rec = aip.file.load("a")\nlocal t = rec.contnet or rec.error\nfor _, f in ipairs(aip.file.list("*")) do print(f.pth) end\nreturn rec.content';
    expect(shown(code)).toEqual([
      "2:15 unknown-field: FileRecord has no field 'contnet'; did you mean content?",
      "3:51 unknown-field: FileInfo has no field 'pth'; did you mean path?",
    ]);
  });
});

describe('type check: CTX', () => {
  it('reports unknown keys with the right one, and keys too new for the minimum version', () => {
    expect(shown('return CTX.AGENT_FILE_DR, CTX.RUN_NUM, CTX.WORKSPACE_DIR', undefined, 'Output', '0.8.10')).toEqual([
      "1:12 unknown-field: CTX has no key 'AGENT_FILE_DR'; did you mean AGENT_FILE_DIR?",
      '1:31 aip-too-new: CTX.RUN_NUM needs AIPack >= 0.8.12; minimum AIPack version checked: 0.8.10',
    ]);
    expect(shown('local CTX = {}\nreturn CTX.ANY')).toEqual([]);
  });
});

describe('type check: annotations in .aip files', () => {
  const aip = (data: string, output: string) => `# Data\n\`\`\`lua\n${data}\n\`\`\`\n\n# Output\n\`\`\`lua\n${output}\n\`\`\`\n`;

  it('an annotation in one block types input in every block; lines are the .aip lines', () => {
    const f = lintAipFile('x.aip', aip('local t = input.coder_tsk', '---@param input CoderPreTaskInput\nreturn nil'), { minAipackVersion: '0.8.15' });
    expect(f.map((x) => `${x.file}:${x.line}:${x.column}: ${x.message}`)).toEqual([
      "x.aip:3:17: input.coder_tsk: the input of stage pre_task has no field 'coder_tsk'; did you mean coder_task?",
    ]);
  });

  it('reports an unknown input class', () => {
    const f = lintAipFile('x.aip', aip('return nil', '---@param input CoderPreInptu\nreturn nil'), { minAipackVersion: '0.8.15' });
    expect(f.map((x) => `${x.line}:${x.column} ${x.rule}`)).toEqual(['8:1 annotation']);
    expect(f[0].message).toContain("unknown input class 'CoderPreInptu'; did you mean CoderPreInput?");
  });

  it('stages given by the caller (contract or prompt file) add to the annotation', () => {
    const f = lintAipFile('x.aip', aip('return nil', 'return { coder_response = { content = "" } }'), { minAipackVersion: '0.8.15' }, ['post_task']);
    expect(f).toEqual([]);
    const g = lintAipFile('x.aip', aip('return nil', 'return { coder_response = { content = "" } }'), { minAipackVersion: '0.8.15' }, ['pre']);
    expect(g.map((x) => x.rule)).toEqual(['response-key']);
  });

  it('check:allow silences a type finding on its line', () => {
    expect(shown('return { coder_promt = 1 } -- check:allow response-key', ['pre'])).toEqual([]);
  });
});
