import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { makeRoot, SOURCES, tempDir } from '../../helpers/pack-root.ts';

const tmp = () => tempDir('coder-subagents-out-');

describe('coder-subagents pack', () => {
  it('pack prints the path, size and files', async () => {
    const root = makeRoot(SOURCES, '0.4.0');
    const out = tmp();
    const r = await runCli(['pack', '--root', root, '--out', out], root);
    expect(r.code).toBe(0);
    const file = join(out, 'pro@coder-v0.4.0.aipack');
    expect(r.stdout).toContain(`wrote ${file} (${readFileSync(file).length} bytes, 9 files)\n`);
    expect(r.stdout).toContain('\n  pack.toml\n');
    // the version module build writes beside the sources' modules (the recorder reads the version from it)
    expect(r.stdout).toContain('\n  lua/pack_version.lua\n');
  });
  it('exits 1 naming a root that holds no pack', async () => {
    const root = makeRoot({});
    const r = await runCli(['pack', '--root', root, '--out', tmp()], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: no pack in .*: neither lua\/ \(the sources\) nor pack\/pack\.toml \(the built pack\) is there/);
  });
});
