import { cpSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { formatPins } from '../../../src/cli/commands/run.ts';
import { tmpDir, write } from '../../harness/helpers.ts';
import { modelsWorkspace } from '../../helpers/models.ts';

const WS = fileURLToPath(new URL('../../../fixtures/coder-run', import.meta.url));
const PROMPT = `${WS}/.aipack/.prompt/pro@coder/coder-prompt.md`;

describe('coder-subagents run', () => {
  it('reports each sub-agent call with its effect, the AI calls, the files and the prompt file, without writing', async () => {
    const before = readFileSync(PROMPT, 'utf8');
    const r = await runCli(['run', '--ai', 'ai.toml', '--json'], WS);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.status).toBe('completed');
    expect(report.prompt_file).toBe('.aipack/.prompt/pro@coder/coder-prompt.md');
    expect(report.sub_agents.map((c: { stage: string; agent: string }) => `${c.stage} ${c.agent}`)).toEqual([
      'pre my/add-ctx.aip',
      'post_task my/guard.aip',
    ]);
    const pre = report.sub_agents[0].effect;
    expect(pre.params.added).toEqual(['model']);
    expect(pre.params.changed).toEqual(['context_globs']);
    expect(pre.prompts.after).toEqual(['Make a equal 2.', 'Keep it short.']);
    expect(report.sub_agents[1].effect.coderResponse.replaced).toBe(true);
    // the pre sub-agent's model reached the AI call
    expect(report.ai_calls.map((a: { model: string }) => a.model)).toEqual(['fast']);
    expect(report.files.changed).toEqual(['.aipack/.prompt/pro@coder/coder-prompt.md', 'src/a.ts']);
    expect(readFileSync(PROMPT, 'utf8')).toBe(before);
  });

  it('prints the pipeline stage by stage for people', async () => {
    const r = await runCli(['run', '--ai', 'ai.toml'], WS);
    expect(r.stdout).toContain('stage pre\n  ✓ my/add-ctx.aip: params +model ~context_globs; prompts changed (2 segments)');
    expect(r.stdout).toContain('stage post_task (task 1)\n  ✓ my/guard.aip: AI answer replaced');
    expect(r.stdout).toMatch(/^completed: Coder done: 1 of 1 task\(s\) answered, 1 file change\(s\) applied, 0 failed\.$/m);
  });

  it('exits 1 when the coder run fails, naming the reason', async () => {
    const r = await runCli(['run', '--json'], WS); // no scripted answers
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed' });
    expect(r.stderr).toContain('no scripted AI response for pro@coder');
  });

  it('prints the prompt once, the cause in one error line on stderr, and says when no --ai file was given', async () => {
    const r = await runCli(['run'], WS);
    expect(r.code).toBe(1);
    const all = r.stdout + r.stderr;
    expect(all.split('--- rendered prompt').length - 1).toBe(1);
    expect(r.stdout).toContain('failed: no scripted AI response for pro@coder\nhint: to answer this task, script an answer with agent = "pro@coder" and match = \'WORKING_FILE file_path="src/a\\.ts"\' (a regex over the prompt below)\n--- rendered prompt');
    expect(r.stderr).toBe(
      'error: no scripted AI response for pro@coder\n' +
        "hint: no --ai file was given: the simulated model only answers from scripted responses (see 'Scripted answers' in the README)\n",
    );
  });

  it('names the prompt file once', async () => {
    const r = await runCli(['run', '--ai', 'ai.toml'], WS);
    expect(r.stdout.match(/prompt file/gi)).toHaveLength(1);
  });

  it('exits 1 when a sub-agent fails, even where AIPack only skips the run, with the reason on its line', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = ["my/bad.aip"]\n```\n\nFix it.\n\n====\n');
    write(ws, 'my/bad.aip', '# Output\n\n```lua\nif input then\n  return nil\nedn\n```\n');
    const r = await runCli(['run'], ws);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}✗ my\/bad\.aip: failed: Lua error: my\/bad\.aip:\d+: .*expected/m);
    expect(r.stdout).toMatch(/^skipped: Sub-agent \[my\/bad\.aip\] failed: /m);
  });

  it('a failed run --write writes what its stages saved before the failure, as AIPack, and says so; the cause is one error line', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nworking_globs = ["src/*.ts"]\nfile_content_mode = "whole"\nsub_agents = [{ name = "my/todo-guard.aip", stages = ["post_task"] }]\n```\n\nRename a.\n\n====\n');
    write(ws, 'my/todo-guard.aip', '# Output\n\n```lua\nif input.coder_response.content:find("TODO") then\n  return { success = false, error_msg = "the answer adds a TODO" }\nend\n```\n');
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, 'ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = """\n<AIP_FILE_CHANGE file_path="src/a.ts">\n````ts\nexport const b = 1; // TODO\n````\n</AIP_FILE_CHANGE>\n"""\n');
    const r = await runCli(['run', '--ai', 'ai.toml', '--write'], ws);
    expect(r.code).toBe(1);
    // Before All and Data wrote the prompt's cache; the task failed before its changes were applied: src/a.ts is as it was
    expect(r.stdout).toMatch(/\nfiles written \(the run failed: as in AIPack, what its stages saved before the failure stays written\):\n {2}created \.aipack\/\.prompt\/pro@coder\/\.cache\//);
    expect(r.stdout).not.toMatch(/(created|changed) src\/a\.ts/);
    expect(r.stdout).not.toContain('use --write');
    expect(r.stderr).toBe('error: Sub-agent [my/todo-guard.aip] failed: the answer adds a TODO\n');
    expect(readFileSync(`${ws}/src/a.ts`, 'utf8')).toBe('export const a = 1;\n');
    expect(existsSync(`${ws}/.aipack/.prompt/pro@coder/workbench-default/.cache/last_prompt_file_paths.md`)).toBe(true);
    // the Lua traceback into the pack is there when asked for
    const traced = await runCli(['run', '--ai', 'ai.toml', '--trace'], ws);
    expect(traced.stderr).toMatch(/^error: Sub-agent \[my\/todo-guard\.aip\] failed: the answer adds a TODO\nstack traceback:/);
    const json = await runCli(['run', '--ai', 'ai.toml', '--json'], ws);
    expect(json.stderr).toBe('error: Sub-agent [my/todo-guard.aip] failed: the answer adds a TODO\n');
  });

  it('a refused change fails the writes of its stage and the later ones, and the output says which files were written and which not', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = [{ name = "my/planter.aip", stages = ["post"] }]\n```\n\nFix it.\n\n====\n');
    write(ws, 'my/planter.aip', '# Output\n\n```lua\naip.file.save(".aipack/pack/custom/planted.txt", "x")\n```\n');
    write(ws, 'ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = "Nothing to change."\n');
    const r = await runCli(['run', '--ai', 'ai.toml', '--write'], ws);
    expect(r.code).toBe(1);
    // the writes of Before All and of the task are on disk; After All's (the planted file, the prompt file) are not
    expect(r.stdout).toMatch(/\nfiles written \(written stage by stage\):\n( {2}created \.aipack\/\.prompt\/pro@coder\/\S+\n)+/);
    expect(r.stdout).toMatch(/\nfiles not written \(the writes of After All and later: \d+ changes? cannot be written, so nothing was written:\):\n/);
    expect(r.stdout).toContain('  created .aipack/pack/custom/planted.txt');
    expect(r.stderr).toMatch(/^error: \d+ changes? cannot be written, so nothing was written: \S+: inside \.aipack\/pack\/, which a simulated run does not write\n$/);
    expect(existsSync(`${ws}/.aipack/.prompt/pro@coder/workbench-default/.cache/last_ai_responses_for_raw.md`)).toBe(true);
    expect(existsSync(`${ws}/.aipack/pack/custom/planted.txt`)).toBe(false);
  });

  it('a failing end sub-agent leaves the files the task wrote, as AIPack, and the run still exits 1', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nworking_globs = ["src/*.ts"]\nwrite_mode = true\nfile_content_mode = "whole"\nsub_agents = [{ name = "my/gate.aip", on = "end" }]\n```\n\nRename a.\n\n====\n');
    write(ws, 'my/gate.aip', '# Output\n\n```lua\nreturn { error_msg = "tests are red" }\n```\n');
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, 'ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = """\nRenamed.\n\n<AIP_FILE_CHANGE file_path="src/a.ts">\n````ts\nexport const b = 1;\n````\n</AIP_FILE_CHANGE>\n"""\n');
    const r = await runCli(['run', '--ai', 'ai.toml', '--write', '--json'], ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: Sub-agent [my/gate.aip] failed: tests are red');
    expect(readFileSync(`${ws}/src/a.ts`, 'utf8')).toBe('export const b = 1;\n');
    const json = JSON.parse(r.stdout);
    expect(json.write.written).toContain('src/a.ts');
    expect(json.write.not_written).toEqual([]);
  });


  it("lists each change that could not be applied with its file and cause, and the pack's warnings", async () => {
    const ws = tmpDir();
    const meta = [
      'working_globs = ["src/*.ts"]',
      'write_mode = true',
      'udiffx_inst_debug = true',
      'contxt_globs = []',
      'auto_fix = false',
      'sub_agents = [{ name = "my/noop.aip", focus = "typo" }, { name = "my/noop.aip", config = { focus = "auth" } }]',
    ].join('\n');
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\n' + meta + '\n```\n\nFix it.\n\n====\n');
    write(ws, 'my/noop.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    const patch = '<FILE_CHANGES>\n<FILE_PATCH file_path="src/a.ts">\n````ts\n@@\n-export const zzz = 9;\n+export const b = 2;\n````\n</FILE_PATCH>\n</FILE_CHANGES>\n';
    write(ws, 'ai.toml', `[[response]]\nagent = "pro@coder"\ncontent = """\n${patch}"""\n`);
    const r = await runCli(['run', '--ai', 'ai.toml', '--aipack-version', '0.8.21'], ws);
    expect(r.stdout).toMatch(/\nchanges not applied:\n {2}src\/a\.ts: FILE_PATCH: .*; Hunk 1 failed: .+\n/);
    expect(r.stdout).toContain("\nwarning: sub_agents[1]: unknown key 'focus' (kept, the agent reads it as input.agent_config.focus;");
    // udiffx_inst_debug is read: the pack's own udiffx instruction is sent, and the value printed
    expect(r.stdout).not.toContain("'udiffx_inst_debug'");
    expect(r.stdout).toContain("\nwarning: unknown prompt parameter 'contxt_globs': it is ignored");
    // the entry's own config table is the user's: never warned about
    expect(r.stdout).not.toContain('sub_agents[2]');
    const json = JSON.parse((await runCli(['run', '--ai', 'ai.toml', '--aipack-version', '0.8.21', '--json'], ws)).stdout);
    expect(json.failed_changes).toEqual([{ file: 'src/a.ts', cause: expect.stringMatching(/^FILE_PATCH: .*; Hunk 1 failed: /) }]);
    expect(json.warnings, JSON.stringify(json.warnings)).toHaveLength(2);
    for (const w of json.warnings) expect(w).not.toContain('\n');
    // a list the contract knows is an array in JSON, also when empty
    expect(json.after_all.tasks).toEqual([expect.objectContaining({ task_num: 1, files_changed: [], files_failed: ['src/a.ts'] })]);
  });

  it('a sub-agent file that does not exist fails Before All, before any model call', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nworking_globs = ["src/*.ts"]\nsub_agents = ["my/ok.aip", { name = "my/todo-gaurd.aip", stages = ["post_task"] }]\n```\n\nFix it.\n\n====\n');
    write(ws, 'my/ok.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, 'ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = "Nothing."\n');
    const r = await runCli(['run', '--ai', 'ai.toml', '--json'], ws);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.ai_calls).toEqual([]);
    expect(report.sub_agents).toEqual([]);
    const path = `${ws}/my/todo-gaurd.aip`;
    expect(report.message).toBe(`Sub-agent [my/todo-gaurd.aip] not found: ${path} does not exist (a name is a path from the workspace root; checked before the run, before any model call)`);
    expect(r.stderr).toContain(`error: the run was skipped (exit 1; AIPack would only skip, but nothing the prompt file asks was done): Sub-agent [my/todo-gaurd.aip] not found: ${path}`);
  });

  it('notes when there is no .aipack/ directory, and runs there', async () => {
    const dir = tmpDir();
    const r = await runCli(['run'], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^note: no \.aipack\/ directory in .* or above: it is used as the workspace/);
    expect(r.stdout).toMatch(/^skipped: Empty instruction/m);
  });

  it('exits 2 for a --workspace that does not exist', async () => {
    const r = await runCli(['run', '--workspace', 'no/such/dir'], WS);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --workspace no/such/dir: no such directory\n');
  });
});

describe('a workspace that used upstream pro@coder (fixtures/coder-upstream)', () => {
  const UPSTREAM = fileURLToPath(new URL('../../../fixtures/coder-upstream', import.meta.url));

  it('install --workspace puts the pack in place of pro@coder, then run works on the existing prompt file', async () => {
    const ws = tmpDir();
    cpSync(UPSTREAM, ws, { recursive: true });
    const before = readFileSync(`${ws}/.aipack/.prompt/pro@coder/coder-prompt.md`, 'utf8');
    const installed = await runCli(['install', '--workspace', ws], ws);
    expect(installed.code).toBe(0);
    expect(existsSync(`${ws}/.aipack/pack/custom/pro/coder/main.aip`)).toBe(true);

    const r = await runCli(['run', '--ai', 'ai.toml', '--json', '--write'], ws);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.status).toBe('completed');
    expect(report.prompt_file).toBe('.aipack/.prompt/pro@coder/coder-prompt.md');
    expect(report.sub_agents.map((c: { stage: string; agent: string }) => `${c.stage} ${c.agent}`)).toEqual(['post my-agents/after-run.aip']);
    // every prompt part sent, with its cache mark
    const parts = report.ai_calls[0].parts as { role: string; cache: boolean; content: string }[];
    expect(parts.map((p) => p.cache)).toEqual([true, true, true, false, false]);
    expect(parts[1]!.content).toContain('<FILE_CHANGES>');
    // the answer's change into the installed pack was refused: the installed pack is intact
    expect(readFileSync(`${ws}/.aipack/pack/custom/pro/coder/main.aip`, 'utf8')).toBe(readFileSync(fileURLToPath(new URL('../../../pack/main.aip', import.meta.url)), 'utf8'));
    const after = readFileSync(`${ws}/.aipack/.prompt/pro@coder/coder-prompt.md`, 'utf8');
    expect(after.startsWith(before.slice(0, before.indexOf('\n====\n')))).toBe(true);
    expect(after).toContain('Added `farewell` and changed the greeting.');
    expect(readFileSync(`${ws}/notes/run-log.md`, 'utf8')).toMatch(/^stage=post event=end\n/);
  });

  it('--trace lists each prompt part sent with its role and cache mark', async () => {
    const r = await runCli(['run', '--ai', 'ai.toml', '--trace'], UPSTREAM);
    expect(r.stdout).toMatch(/part 1\/5 system \[cache\] \d+ chars: "You are an experienced/);
    expect(r.stdout).toMatch(/part 3\/5 user \[cache\] \d+ chars: "Background material/);
    expect(r.stdout).toMatch(/part 5\/5 user \d+ chars: "My instruction:/);
  });
});

describe('run: the built-in sub-agents of an upstream prompt (auto_context: flash, auto_fix: lite)', () => {
  const UP = fileURLToPath(new URL('../../../fixtures/builtins/upstream-prompt', import.meta.url));

  it("lists auto-context and auto-fix with their effects, and every built-in's model calls", async () => {
    const r = await runCli(['run', '--ai', 'ai.toml', '--aipack-version', '0.8.33'], UP);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('  ✓ pro@coder/auto-context: params ~context_globs');
    expect(lines).toContain('  ✓ pro@coder/auto-fix: fixed src/greet.ts (lite)');
    expect(lines.filter((l) => l.startsWith('AI '))).toEqual([
      'AI pro@coder/code-map (flash) x2',
      'AI pro@coder/auto-context (flash)',
      'AI pro@coder/auto-fix (lite)',
      'AI task 1 (gpt-5.2): <FILE_CHANGES>',
    ]);
    expect(lines).toContain('  changed src/greet.ts');
    const json = JSON.parse((await runCli(['run', '--ai', 'ai.toml', '--aipack-version', '0.8.33', '--json'], UP)).stdout);
    expect(json.sub_agent_ai_calls.map((c: { agent: string }) => c.agent)).toEqual([
      'pro@coder/code-map',
      'pro@coder/code-map',
      'pro@coder/auto-context',
      'pro@coder/auto-fix',
    ]);
  });
});

describe('formatPins (the pins in `run`, as AIPack\'s terminal shows them)', () => {
  it('right-aligns each label in at least 10 columns, puts later content lines under the first, an empty line after each', () => {
    const pin = (label: string, content: string, run = 0) => ({ scope: 'run' as const, iden: 'x', label, content, run });
    expect(formatPins([pin('     Prompt:', 'Fix it\n\nFocus: auth'), pin('Pin:', 'careful')])).toEqual([
      'pins:',
      '     Prompt: Fix it',
      '',
      '             Focus: auth',
      '',
      '      Pin: careful',
      '',
    ]);
    expect(formatPins([pin('Pin:', 'a'), pin('Pin:', 'b', 1)])).toEqual(['pins of the first run:', '      Pin: a', '', 'pins of redo 1:', '      Pin: b', '']);
    expect(formatPins([pin('Pin:', 'evil\u001b[2J')])[1]).toBe('      Pin: evil\\x1b[2J');
    expect(formatPins([])).toEqual([]);
  });
});

describe('coder-subagents run, on model names', () => {
  it('prints one warning line per model name AIPack would not take as meant, with did-you-mean', async () => {
    const { ws } = modelsWorkspace();
    write(ws, 'ai.toml', '');
    const r = await runCli(['run', '--ai', 'ai.toml'], ws);
    const lines = (r.stdout + r.stderr).split('\n').filter((l) => l.includes("model '"));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain("warning: meta block model: model 'sonet' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'sonnet'?)");
  });
});
