import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/runtime/packs.ts';
import { runCli } from '../../helpers/cli.ts';

describe('coder-subagents demo (npm run demo)', () => {
  it('runs the coder with sub-agents at all four stages and shows each effect and the changed files', async () => {
    const r = await runCli(['demo'], REPO_ROOT);
    expect(r.code).toBe(0);
    for (const stage of ['Before All', 'Data', 'Output', 'After All']) expect(r.stdout).toContain(`■ ${stage}:`);
    // a pre sub-agent changed params, a pre_task one the model, a post_task one the AI answer
    expect(r.stdout).toMatch(/context-from-words\.aip: params ~context_globs/);
    expect(r.stdout).toMatch(/model-per-task\.aip \[task 2\]: params \+model/);
    expect(r.stdout).toMatch(/forbidden-paths-guard\.aip \[task 2\]: AI answer replaced/);
    expect(r.stdout).toContain('── src/auth/login.ts');
    expect(r.stdout).toContain('── src/utils/format.ts');
    expect(r.stdout).not.toContain('── .env'); // the guard stripped it from the answer
    expect(r.stdout).toMatch(/\ncompleted: Coder done: 2 of 2 task\(s\) answered.*\n/);
    // then the path of the run's HTML report, in a temp dir of its own
    const page = /\nHTML report of the run: (.+)\n$/.exec(r.stdout)?.[1];
    expect(page).toMatch(/coder-subagents-demo-[^/]+\/report\.html$/);
    expect(readFileSync(page!, 'utf8')).toContain('my-agents/forbidden-paths-guard.aip');
    // the first demo of the file also warms the Lua VM, and the page loads the tokenizer's tables
  }, 60_000);

  it('shows what the pack does today: an event-form chain with a custom event, the built-in auto-context with its code map, a parallel group', async () => {
    const r = await runCli(['demo'], REPO_ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('my-agents/plan.aip (on start): emits plan::ready');
    expect(r.stdout).toMatch(/my-agents\/plan-check\.aip \(on plan::ready\): params \+temperature; prompts changed/);
    expect(r.stdout).toMatch(/pro@coder\/auto-context \(on start\): params ~context_globs\n.*context_globs = \["src\/auth\/login\.ts","src\/utils\/format\.ts"\]\n.*AI pro@coder\/code-map \(demo-cheap\) x3/);
    expect(r.stdout).toMatch(/\[1\] my-agents\/review\.aip: 1 model call \(demo-model\) → \{"focus":"security","review":"The password is never logged; fine\."\}/);
    expect(r.stdout).toMatch(/\[2\] my-agents\/review\.aip: 1 model call \(demo-model\) → \{"focus":"tests"/);
  }, 120_000);

  it('exits 2 for a workspace that does not exist or has no ai.toml', async () => {
    const missing = await runCli(['demo', '--workspace', 'no/such/dir'], REPO_ROOT);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: --workspace no/such/dir: no such directory\n');
    const noAi = await runCli(['demo', '--workspace', 'fixtures/sub-agents'], REPO_ROOT);
    expect(noAi.code).toBe(2);
    expect(noAi.stderr).toMatch(/^error: .*fixtures\/sub-agents\/ai\.toml not found/);
  });

  it('marks a prompt segment shown by its first line only', async () => {
    const r = await runCli(['demo'], REPO_ROOT);
    expect(r.stdout).toMatch(/│ Validate the login form .* …\n/);
    expect(r.stdout).toContain('│ Focus: input validation and display formatting\n');
  });
});
