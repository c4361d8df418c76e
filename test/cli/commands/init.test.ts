import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseContractFile } from '../../../src/harness/case-file.ts';
import { runCli } from '../../helpers/cli.ts';
import { tmpDir, write } from '../../harness/helpers.ts';

describe('coder-subagents init', () => {
  // the starters' content and cases: test/harness/init-scaffold.test.ts
  it('writes the starter of --stage and its cases, which `test --strict` passes', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'my-agent', '--dir', 'agents', '--stage', 'post_task'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(nodePath.join(dir, 'agents/my-agent.aip'), 'utf8')).toContain('a `post_task` sub-agent for pro@coder');
    const cases = parseContractFile(readFileSync(nodePath.join(dir, 'agents/my-agent.contract.toml'), 'utf8'), 'my-agent.contract.toml').cases;
    const t = await runCli(['test', 'agents', '--strict', '--json'], dir);
    const out = JSON.parse(t.stdout);
    expect(out.cases.filter((c: { status: string }) => c.status !== 'passed')).toEqual([]);
    expect(out.passed).toBe(cases.length);
    expect(t.code).toBe(0);
  });

  it('the entries it recommends run in a coder prompt without a pack warning', async () => {
    const dir = tmpDir();
    write(dir, '.aipack/.keep', '');
    write(dir, 'src/a.ts', 'export const a = 1;\n');
    const entries: string[] = [];
    for (const stage of ['pre', 'pre_task', 'post_task', 'post']) {
      const r = await runCli(['init', `a-${stage.replace('_', '-')}`, '--dir', 'agents', '--stage', stage], dir);
      entries.push(/sub_agents = \[(.*)\]$/m.exec(r.stdout)![1]!);
    }
    write(dir, '.aipack/.prompt/pro@coder/coder-prompt.md', `\`\`\`toml\n#!meta\nworking_globs = ["src/*.ts"]\nsub_agents = [${entries.join(', ')}]\n\`\`\`\n\nFix the login form.\n\n====\n`);
    write(dir, 'ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = "Nothing to change."\nreusable = true\n');
    const run = await runCli(['run', '--ai', 'ai.toml', '--json'], dir);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report.sub_agents.map((c: { agent: string }) => c.agent)).toEqual(['agents/a-pre.aip', 'agents/a-pre-task.aip', 'agents/a-post-task.aip', 'agents/a-post.aip']);
    expect(report.warnings).toEqual([]);
  });

  it('--with-model writes a pre_task sub-agent that asks its own model; check passes; other stages are refused', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'advisor', '--dir', 'agents', '--stage', 'pre_task', '--with-model'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('sub_agents = [{ name = "agents/advisor.aip", stages = ["pre_task"], options = { model = "cheap" } }]');
    const check = await runCli(['check', 'agents'], dir);
    expect(check.code, check.stdout).toBe(0);
    const bad = await runCli(['init', 'other', '--with-model'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --with-model: the model-calling starter is a pre_task sub-agent; use --stage pre_task\n');
  });

  it('prints the files and the next steps', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'refiner', '--dir', 'agents'], dir);
    expect(r.stdout).toBe(
      [
        'created agents/refiner.aip',
        'created agents/refiner.contract.toml',
        'created .luarc.json (Lua types for your editor: lua-types, written)',
        '',
        'Next steps:',
        '  1. run its cases:      npx coder-subagents test agents',
        '  2. edit both files; re-run on save with: npx coder-subagents test agents --watch',
        '  3. enable it in the meta block of your coder-prompt.md (name = its path from the workspace root):',
        '       sub_agents = [{ name = "agents/refiner.aip", stages = ["pre"], config = { focus = "auth" } }]',
        '',
      ].join('\n'),
    );
  });

  it('names the agent in the entry by its path from the workspace root, also from a subdirectory', async () => {
    const ws = tmpDir();
    write(ws, '.aipack/config.toml', '');
    write(ws, 'app/README.md', '');
    const r = await runCli(['init', 'refiner', '--dir', 'agents'], nodePath.join(ws, 'app'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('created agents/refiner.aip\n');
    expect(r.stdout).toContain('sub_agents = [{ name = "app/agents/refiner.aip", stages = ["pre"], config = { focus = "auth" } }]');
  });

  it('defaults to the current directory and the pre stage', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'x'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('npx coder-subagents test .');
    expect(readFileSync(nodePath.join(dir, 'x.aip'), 'utf8')).toContain('a `pre` sub-agent');
  });

  it('sets the editor up: an annotated agent, .luarc.json and the Lua type definitions', async () => {
    const dir = tmpDir();
    expect((await runCli(['init', 'a', '--stage', 'post_task'], dir)).code).toBe(0);
    expect(readFileSync(nodePath.join(dir, 'a.aip'), 'utf8')).toContain('```lua\n---@param input CoderPostTaskInput\n');
    expect(JSON.parse(readFileSync(nodePath.join(dir, '.luarc.json'), 'utf8'))['workspace.library']).toEqual(['lua-types']);
    expect(readFileSync(nodePath.join(dir, 'lua-types/contract.lua'), 'utf8')).toContain('---@class CoderPostTaskInput\n');
    const again = await runCli(['init', 'b'], dir);
    expect(again.stdout).toContain('kept .luarc.json (Lua types for your editor: lua-types, written)\n');
  });

  it('as a new user: init, misspell an input field, check names the field and the right one', async () => {
    const dir = tmpDir();
    expect((await runCli(['init', 'refiner', '--dir', 'agents'], dir)).code).toBe(0);
    const file = nodePath.join(dir, 'agents/refiner.aip');
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('local prompts = input.coder_prompts'));
    lines[at] = lines[at].replace('input.coder_prompts', 'input.coder_promts');
    writeFileSync(file, lines.join('\n'));
    const r = await runCli(['check', 'agents'], dir);
    expect(r.stdout).toBe(
      `agents/refiner.aip:${at + 1}:23: unknown-field: input.coder_promts: the input of stage pre has no field 'coder_promts'; did you mean coder_prompts?\n1 finding in 1 file\n`,
    );
    expect(r.code).toBe(1);
  });

  it('refuses to overwrite existing files and writes nothing', async () => {
    const dir = tmpDir();
    write(dir, 'x.contract.toml', 'mine');
    const r = await runCli(['init', 'x'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: x.contract.toml already exists: not overwritten (choose another name or --dir)\n');
    expect(existsSync(nodePath.join(dir, 'x.aip'))).toBe(false);
    expect(readFileSync(nodePath.join(dir, 'x.contract.toml'), 'utf8')).toBe('mine');
  });

  it('--form event writes an upstream-style sub-agent (on, merged params, the post fields) whose cases pass `test` and `check`', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'focus', '--dir', 'agents', '--form', 'event'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('sub_agents = [{ name = "agents/focus.aip", on = ["start", "end"], focus = "auth" }]');
    expect(readFileSync(nodePath.join(dir, 'agents/focus.aip'), 'utf8')).toContain('---@param input CoderEventPreInput|CoderEventPostInput');
    const t = await runCli(['test', 'agents', '--strict', '--json'], dir);
    const out = JSON.parse(t.stdout);
    expect(out.cases.filter((c: { status: string }) => c.status !== 'passed')).toEqual([]);
    expect(out.passed).toBe(3);
    const check = await runCli(['check', 'agents'], dir);
    expect(check.stdout).toMatch(/^check passed/);
    expect(check.code).toBe(0);
  });

  it('--workbench writes an event-form sub-agent on workbench::done whose cases pass `test`; it takes no stage, model or other form', async () => {
    const dir = tmpDir();
    const r = await runCli(['init', 'plan-step', '--dir', 'agents', '--workbench'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('sub_agents = [{ name = "agents/plan-step.aip", on = "workbench::done" }]');
    expect(readFileSync(nodePath.join(dir, 'agents/plan-step.aip'), 'utf8')).toContain('input.coder_workbench');
    const out = JSON.parse((await runCli(['test', 'agents', '--strict', '--json'], dir)).stdout);
    expect(out.cases.filter((c: { status: string }) => c.status !== 'passed')).toEqual([]);
    expect(out.passed).toBe(3);
    expect((await runCli(['init', 'e', '--workbench', '--form', 'event'], dir)).code).toBe(0);
    const staged = await runCli(['init', 'f', '--workbench', '--form', 'stage'], dir);
    expect(staged.stderr).toBe('error: --workbench: the workbench starter is in the event form (on = "workbench::done"); drop --form stage\n');
    const stage = await runCli(['init', 'g', '--workbench', '--stage', 'pre'], dir);
    expect(stage.stderr).toBe('error: --stage pre: the workbench starter has no stages; its entry listens to workbench::done\n');
    const model = await runCli(['init', 'h', '--workbench', '--with-model'], dir);
    expect(model.stderr).toBe('error: --with-model: the model-calling starter is in the stage form; drop --workbench\n');
    expect(['f', 'g', 'h'].some((n) => existsSync(nodePath.join(dir, `${n}.aip`)))).toBe(false);
  });

  it('--form stage is the default; --form event takes no --stage nor --with-model; a bad form is named', async () => {
    const dir = tmpDir();
    expect((await runCli(['init', 'a', '--form', 'stage'], dir)).stdout).toContain('stages = ["pre"]');
    const bad = await runCli(['init', 'b', '--form', 'events'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("error: --form events: expected stage (the seed's stages) or event (upstream pro@coder's on); did you mean event?\n");
    const staged = await runCli(['init', 'c', '--form', 'event', '--stage', 'post'], dir);
    expect(staged.code).toBe(2);
    expect(staged.stderr).toBe('error: --stage post: the event form has no stages; its entry listens to events (on = ["start", "end"])\n');
    const model = await runCli(['init', 'd', '--form', 'event', '--with-model'], dir);
    expect(model.code).toBe(2);
    expect(model.stderr).toBe('error: --with-model: the model-calling starter is in the stage form; drop --form event\n');
    expect(existsSync(nodePath.join(dir, 'b.aip')) || existsSync(nodePath.join(dir, 'c.aip')) || existsSync(nodePath.join(dir, 'd.aip'))).toBe(false);
  });

  it('rejects a bad stage or name', async () => {
    const dir = tmpDir();
    const stage = await runCli(['init', 'x', '--stage', 'during'], dir);
    expect(stage.code).toBe(2);
    expect(stage.stderr).toBe('error: --stage during: expected one of pre, pre_task, post_task, post\n');
    const name = await runCli(['init', '../x'], dir);
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/^error: name '\.\.\/x': expected letters, digits/);
    expect(existsSync(nodePath.join(dir, 'x.aip'))).toBe(false);
  });
});
