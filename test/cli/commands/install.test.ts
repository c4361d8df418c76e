import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/runtime/packs.ts';
import { runCli } from '../../helpers/cli.ts';
import { tmpDir, write } from '../../harness/helpers.ts';
import { makeRoot, SOURCES, tempDir } from '../../helpers/pack-root.ts';

const tmp = () => tempDir('coder-subagents-out-');

describe('coder-subagents install', () => {
  it('installs into an existing workspace, then reports it up to date', async () => {
    const ws = tmpDir();
    const r = await runCli(['install', '--workspace', ws], REPO_ROOT);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^installed pro@coder \S+ into .*\.aipack\/pack\/custom\/pro\/coder\n/);
    expect(existsSync(nodePath.join(ws, '.aipack/pack/custom/pro/coder/main.aip'))).toBe(true);
    const again = await runCli(['install', '--workspace', ws], REPO_ROOT);
    expect(again.stdout).toMatch(/is up to date\n$/);
  });

  it('exits 2 for a --workspace that does not exist, and creates nothing', async () => {
    const ws = nodePath.join(tmpDir(), 'typo');
    const r = await runCli(['install', '--workspace', ws], REPO_ROOT);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: --workspace ${ws}: no such directory\n`);
    expect(existsSync(ws)).toBe(false);
    const file = write(tmpDir(), 'file.txt', '');
    expect((await runCli(['install', '--workspace', file], REPO_ROOT)).stderr).toBe(`error: --workspace ${file}: not a directory\n`);
  });

  it('install refuses another version with exit code 1, and --force replaces it', async () => {
    const ws = tmp();
    const r1 = await runCli(['install', '--root', makeRoot(SOURCES, '1.0.0'), '--workspace', ws], ws);
    expect(r1.code).toBe(0);
    expect(r1.stdout).toContain('installed pro@coder 1.0.0 into ');
    const newer = makeRoot(SOURCES, '2.0.0');
    const r2 = await runCli(['install', '--root', newer, '--workspace', ws], ws);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/pro@coder 1\.0\.0 is already installed at .*; use --force to replace it with 2\.0\.0/);
    const r3 = await runCli(['install', '--root', newer, '--workspace', ws, '--force'], ws);
    expect(r3.code).toBe(0);
    expect(r3.stdout).toContain('installed pro@coder 2.0.0 into ');
    expect(r3.stdout).toContain('(replaced 1.0.0)');
  });
});
