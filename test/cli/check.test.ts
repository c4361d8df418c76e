import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tmpDir, write } from '../harness/helpers.ts';

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
