import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../../helpers/cli.ts';
import { FIXTURES, tmpDir, write } from '../../harness/helpers.ts';

/** Output lines, without the per-case times (they vary from run to run). */
const lines = (s: string) => s.trimEnd().split('\n').map((l) => l.replace(/ \d+ ms( \(slow\))?$/, ''));

const WRONG = `agent = "prompt-refiner.aip"
[[case]]
name = "wrong prompts"
prompt = "Fix"
[case.expect]
prompts = ["Fix", "Focus: billing"]

[[case]]
name = "right prompts"
prompt = "Fix"
[case.expect]
prompts = ["Fix", "Focus: app"]
`;

describe('coder-subagents test', () => {
  it('runs every case file under a path: one line per case, the summary, exit 0 (real binary)', () => {
    const r = spawnCli(['test', 'agents'], FIXTURES);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toContain('✓ agents/prompt-refiner.contract.toml › adds a focus line and a context glob (pre)');
    expect(out).toContain('✓ agents/task-tuner.contract.toml › cools down multi-file tasks (pre_task)');
    expect(out).toContain('✓ agents/answer-cleaner.contract.toml › removes DEBUG lines (post_task)');
    expect(out).toContain('✓ agents/summary-writer.contract.toml › writes the summary file (post)');
    expect(out).toContain('- agents/prompt-refiner.contract.toml › not ready yet (pre) skipped');
    expect(out).toContain("    warning: unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored");
    expect(out.at(-1)).toBe('13 passed, 0 failed, 1 skipped');
  });

  it('defaults to the current directory and searches below it', async () => {
    const r = await runCli(['test'], FIXTURES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ agents/failing.contract.toml › adds the ticket (pre)');
    expect(lines(r.stdout).at(-1)).toBe('13 passed, 0 failed, 1 skipped');
  });

  it('exits 1 when a case fails, with the diff under the case', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', WRONG);
    const r = await runCli(['test', 'agents/wrong.contract.toml'], dir);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toEqual([
      '✗ agents/wrong.contract.toml › wrong prompts (pre)',
      '    prompts[2]: expected "Focus: billing", got "Focus: app"',
      '✓ agents/wrong.contract.toml › right prompts (pre)',
      '',
      'stages covered:',
      '  agents/prompt-refiner.aip: pre ×2',
      '',
      '1 passed, 1 failed',
    ]);
  });

  it('--strict fails cases with warnings', async () => {
    const lax = await runCli(['test', 'agents/param-dropper.contract.toml'], FIXTURES);
    expect(lax.code).toBe(0);
    const strict = await runCli(['test', 'agents/param-dropper.contract.toml', '--strict'], FIXTURES);
    expect(strict.code).toBe(1);
    expect(lines(strict.stdout).join('\n')).toContain('✗ agents/param-dropper.contract.toml › replaces the params (pre)\n    --strict: the 4 warnings below fail this case\n    warning: ');
    expect(lines(strict.stdout).at(-1)).toBe('0 passed, 1 failed');
  });

  it('--json prints the cases, the counts and the errors', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', WRONG);
    const r = await runCli(['test', 'agents/wrong.contract.toml', 'agents/param-dropper.contract.toml', '--json'], dir);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['cases', 'passed', 'failed', 'skipped', 'not_run', 'errors', 'agents_without_contract', 'coverage']);
    expect(out.coverage).toEqual([
      { agent: 'agents/param-dropper.aip', stages: { pre: 1 } },
      { agent: 'agents/prompt-refiner.aip', stages: { pre: 2 } },
    ]);
    expect(out.passed).toBe(2);
    expect(out.failed).toBe(1);
    expect(out.skipped).toBe(0);
    expect(out.errors).toEqual([]);
    expect(out.cases[0]).toEqual({
      file: 'agents/param-dropper.contract.toml',
      name: 'replaces the params',
      stage: 'pre',
      status: 'passed',
      message: null,
      warnings: expect.arrayContaining(["unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored"]),
      ms: expect.any(Number),
      slow: expect.any(Boolean),
    });
    expect(out.cases[1]).toEqual({
      file: 'agents/wrong.contract.toml',
      name: 'wrong prompts',
      stage: 'pre',
      status: 'failed',
      message: 'prompts[2]: expected "Focus: billing", got "Focus: app"',
      warnings: [],
      ms: expect.any(Number),
      slow: expect.any(Boolean),
    });
  });

  it('--filter runs only matching cases; filtered cases are not counted as skipped', async () => {
    const r = await runCli(['test', 'agents', '--filter', 'DEBUG'], FIXTURES);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '✓ agents/answer-cleaner.contract.toml › removes DEBUG lines (post_task)',
      '',
      'stages covered:',
      '  agents/answer-cleaner.aip: post_task ×1',
      expect.stringMatching(/^no contract file \(not tested\): agents\/lister\.aip(, |$)/),
      '',
      '1 passed, 0 failed',
    ]);
    const none = await runCli(['test', 'agents', '--filter', 'no such case'], FIXTURES);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no case matches --filter "no such case"/);
  });

  it('--trace prints the sub-agent run under each case', async () => {
    const r = await runCli(['test', 'agents/ai-refiner.contract.toml', '--filter', "AI's rewrite", '--trace'], FIXTURES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('    trace:');
    expect(r.stdout).toMatch(/aip\.agent\.run ai-refiner\.aip/);
    expect(r.stdout).toMatch(/AI task #1 model sim-model: "Fix the validation of the login form\."/);
  });

  it('exits 2 for a malformed case file, naming the file, the case and the key; the other files still run', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/bad.contract.toml', 'agent = "prompt-refiner.aip"\n[[case]]\nname = "typo"\npromt = "Fix"\n');
    const r = await runCli(['test', 'agents'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: agents/bad.contract.toml: case #1 \"typo\": unknown key 'promt' (did you mean 'prompt'?) " +
        '(allowed: name, skip, order_check, stage, prompt, prompts, params, config, files, ai, commands, web, mocks, task, response, responses, prev, expect)\n',
    );
    expect(lines(r.stdout).at(-1)).toBe('13 passed, 0 failed, 1 skipped, 1 case file not run (see the error above)');
  });

  it('exits 2 for a missing agent, with the key', async () => {
    const dir = tmpDir();
    write(dir, 'x.contract.toml', 'agent = "gone.aip"\n[[case]]\nname = "a"\n');
    const r = await runCli(['test', '--json'], dir);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0]).toMatch(/^x\.contract\.toml: agent: 'gone\.aip' not found/);
  });

  it('exits 2 when there is no case file or the path does not exist', async () => {
    const dir = tmpDir();
    const none = await runCli(['test'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('error: no case files (*.contract.toml) found under .\n');
    const missing = await runCli(['test', 'nope'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: nope: no such file or directory\n');
  });

  it('takes an agent for its case file', async () => {
    const r = await runCli(['test', 'agents/task-tuner.aip'], FIXTURES);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe('2 passed, 0 failed');
    const dir = tmpDir();
    write(dir, 'lonely.aip', '# Output\n');
    const none = await runCli(['test', 'lonely.aip'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'error: lonely.aip is an agent, not a case file, and lonely.contract.toml does not exist (npx coder-subagents init writes both)\n',
    );
  });

  it('names a Lua error by the agent path of the case file, not the sandbox', async () => {
    const dir = tmpDir();
    write(dir, 'agents/broken.aip', '# Output\n\n```lua\nif input then\n  return nil\nedn\n```\n');
    write(dir, 'agents/broken.contract.toml', 'agent = "broken.aip"\n[[case]]\nname = "runs"\n');
    const r = await runCli(['test', 'agents', '--trace'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('__coder_subagents_sandbox__');
    expect(r.stdout).toContain("\n    broken.aip:6: 'end' expected (to close 'if' at line 4) near 'edn'\n");
    expect(r.stdout).toContain('agent broken.aip (broken.aip, 1 input)');
    expect(lines(r.stdout).at(-1)).toBe('0 passed, 1 failed');
  });
});
