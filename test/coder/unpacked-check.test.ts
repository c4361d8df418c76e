import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheckDetailed } from '../../src/check/index.ts';
import { readAipack, writeArchive } from '../../src/pack/archive.ts';
import { REPO_ROOT } from '../../src/runtime/packs.ts';

const tmp = mkdtempSync(nodePath.join(os.tmpdir(), 'unpacked-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the .aipack archive of this repo', () => {
  it('unzips to a pack that check accepts, with pack.toml at its root', async () => {
    const archive = writeArchive(REPO_ROOT, tmp);
    const dir = nodePath.join(tmp, 'pack');
    const entries = readAipack(archive.path);
    for (const [rel, bytes] of entries) {
      mkdirSync(nodePath.dirname(nodePath.join(dir, rel)), { recursive: true });
      writeFileSync(nodePath.join(dir, rel), bytes);
    }
    expect([...entries.keys()]).toContain('pack.toml');
    expect([...entries.keys()]).toContain('main.aip');
    expect([...entries.keys()]).toContain('lua/sub_agent_contract.lua');
    const result = await runCheckDetailed({ root: dir, paths: ['.'], minAipackVersion: '0.8.15' });
    expect(result.findings).toEqual([]);
    // every Lua module and the agent were linted
    expect(result.files.sort()).toEqual([...entries.keys()].filter((p) => p.endsWith('.lua') || p.endsWith('.aip')).sort());
  });
});
