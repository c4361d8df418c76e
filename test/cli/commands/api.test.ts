import { describe, expect, it } from 'vitest';
import { apiStatusAt } from '../../../src/aip/api-status.ts';
import { runCli } from '../../helpers/cli.ts';

describe('coder-subagents api', () => {
  it('lists each function with its status and sums them up', async () => {
    const r = await runCli(['api', '--aipack-version', '0.8.15'], process.cwd());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^aip\.file\.copy\s+stricter\s+since 0\.8\.15$/m);
    const all = apiStatusAt('0.8.15');
    expect(r.stdout).toContain(`\n${all.length} functions at AIPack 0.8.15: `);
  });

  it('--status filters and --json prints the rows', async () => {
    const r = await runCli(['api', '--status', 'scripted', '--json'], process.cwd());
    expect(JSON.parse(r.stdout).map((x: { path: string }) => x.path).sort()).toEqual(['aip.cmd.exec', 'aip.web.get', 'aip.web.post']);
  });

  it('exits 2 for a bad version or status', async () => {
    expect((await runCli(['api', '--aipack-version', '0.8'], process.cwd())).stderr).toBe('error: --aipack-version 0.8: expected MAJOR.MINOR.PATCH, e.g. 0.8.15\n');
    const bad = await runCli(['api', '--status', 'maybe'], process.cwd());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --status maybe: expected one of simulated, scripted, stricter, not simulated\n');
  });
});
