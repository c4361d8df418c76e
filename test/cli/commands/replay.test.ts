import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { copyDemo, DEMO_AI, recordDemo } from '../../helpers/record.ts';

describe('replay', () => {
  const { ws, record } = recordDemo();

  it('exits 0 and says so when the replay agrees with the record', async () => {
    const clean = copyDemo();
    const r = await runCli(['replay', record.dir, '--workspace', clean, '--ai', DEMO_AI], clean);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`replay of run ${record.run.id}`);
    expect(r.stdout).toContain('agree: every step of the replay matches the record');
    expect(r.code).toBe(0);
  });

  it('classes the differences of a changed workspace and still exits 0 (no simulator difference); --json for tools', async () => {
    const r = await runCli(['replay', 'latest', '--workspace', ws, '--ai', DEMO_AI, '--json'], ws);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { agree: boolean; differences: { class: string; step: string }[] };
    expect(out.agree).toBe(true);
    expect(out.differences.some((d) => d.class === 'workspace' && d.step === 'files_sent task 1')).toBe(true);
  });

  it('exits 1 when the run cannot be replayed, saying what is missing', async () => {
    const r = await runCli(['replay', record.dir, '--workspace', copyDemo()], nodePath.dirname(ws));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: the replay did not finish: .*no scripted AI response for .*instruction-clarifier/);
  });
});
