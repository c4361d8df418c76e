import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { runCli } from '../helpers/cli.ts';
import { tmpDir } from '../harness/helpers.ts';

describe('main', () => {
  it('--help lists every command; --version prints the package version', async () => {
    const help = await runCli(['--help'], process.cwd());
    expect(help.code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(help.stdout).toContain(`  ${name}`);
    const v = await runCli(['--version'], process.cwd());
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on bad usage, with a JSON error object when --json was asked for', async () => {
    const r = await runCli(['run', '--workspace', '/no/such/dir', '--json'], tmpDir());
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: '--workspace /no/such/dir: no such directory', exit_code: 2 });
    const unknown = await runCli(['frobnicate'], process.cwd());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it('an unknown option is usage: exit 2 and one line, never a stack', async () => {
    const r = await runCli(['schema', 'agent_config', '--out', 'x.json'], process.cwd());
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown option '--out'\n");
  });
});
