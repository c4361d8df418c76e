import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { tmpDir, write } from '../../harness/helpers.ts';
import { modelsWorkspace } from '../../helpers/models.ts';

// The real checker (test/check/cli.test.ts stubs it): what a user outside this repository sees.
describe('coder-subagents check, outside this repository', () => {
  it('exits 2 when there is nothing to check, instead of passing on no file', async () => {
    const dir = tmpDir();
    const r = await runCli(['check'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "error: nothing to check: no .aip or .lua file under pack/ and fixtures/ (the defaults); name your agents' directory, e.g. npx coder-subagents check my-agents\n",
    );
    write(dir, 'docs/a.md', '# not an agent\n');
    const empty = await runCli(['check', 'docs'], dir);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('error: nothing to check: no .aip or .lua file under docs;');
  });

  it('says so when .checkignore lists every file', async () => {
    const dir = tmpDir();
    write(dir, 'my-agents/a.aip', '# Output\n\n```lua\nreturn nope\n```\n');
    write(dir, '.checkignore', 'my-agents/*.aip\n');
    const r = await runCli(['check', 'my-agents'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: nothing to check: no .aip or .lua file that .checkignore does not list under my-agents;');
  });

  it('checks the agents of a directory it is given', async () => {
    const dir = tmpDir();
    write(dir, 'my-agents/a.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    const r = await runCli(['check', 'my-agents'], dir);
    expect(r.stdout).toBe('check passed (1 file)\n');
    expect(r.code).toBe(0);
  });
});

describe('check on one agent, and on a prompt file', () => {
  const typo = '# Output\n\n```lua\nlocal prompts = input.coder_prompts\nreturn { coder_promts = prompts }\n```\n';

  it('a single .aip reads its sibling contract file, as checking its directory does', async () => {
    const dir = tmpDir();
    write(dir, 'agents/refiner.aip', typo.replace('coder_promts', 'coder_params = input.coder_params, coder_promts'));
    write(dir, 'agents/refiner.contract.toml', 'agent = "refiner.aip"\n\n[[case]]\nname = "x"\nstage = "post"\n');
    const whole = await runCli(['check', 'agents'], dir);
    const single = await runCli(['check', 'agents/refiner.aip'], dir);
    expect(whole.stdout).toMatch(/agents\/refiner\.aip:\d+:\d+: response-key: response key 'coder_params' is ignored in stage post/);
    expect(single.stdout).toBe(whole.stdout);
    expect(single.code).toBe(1);
  });

  it('a response key no stage accepts is flagged without knowing the stage', async () => {
    const dir = tmpDir();
    write(dir, 'agents/refiner.aip', typo);
    const r = await runCli(['check', 'agents/refiner.aip'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^agents\/refiner\.aip:5:10: response-key: response key 'coder_promts' is not a sub-agent response field \(no stage accepts it\); did you mean '?coder_prompts'?\?$/m);
  });

  it('check agents <prompt-file> names a sub_agents entry whose file does not exist', async () => {
    const dir = tmpDir();
    write(dir, '.aipack/.keep', '');
    write(dir, 'agents/ok.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    const prompt = write(dir, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = [\n  "agents/ok.aip",\n  { name = "agents/todo-gaurd.aip", stages = ["post_task"] },\n]\n```\n\nFix it.\n');
    const r = await runCli(['check', 'agents', prompt], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `.aipack/.prompt/pro@coder/coder-prompt.md:5:13: agent-not-found: Sub-agent [agents/todo-gaurd.aip] not found: ${dir}/agents/todo-gaurd.aip does not exist (a name is a path from the workspace root)\n`,
    );
  });
});

describe('check on the model names a prompt gives', () => {
  it('prints one warning line per name AIPack would not take as meant, with did-you-mean, and passes', async () => {
    const { ws } = modelsWorkspace();
    const r = await runCli(['check', 'agents', '.aipack/.prompt/pro@coder/coder-prompt.md'], ws);
    const lines = r.stdout.split('\n').filter((l) => l.includes('model-name'));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(
      ".aipack/.prompt/pro@coder/coder-prompt.md:3:9: warning model-name: meta block model: model 'sonet' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'sonnet'?)",
    );
    expect(r.code).toBe(0);
  });
});
