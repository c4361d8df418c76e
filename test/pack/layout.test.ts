import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import * as build from '../../src/pack/build.ts';
import { PACK_DIR, SOURCE_DIR } from '../../src/pack/layout.ts';
import { tmpDir, write } from '../harness/helpers.ts';

describe('pack layout', () => {
  it('names the directories build reads and writes', () => {
    expect([build.SOURCE_DIR, build.PACK_DIR]).toEqual([SOURCE_DIR, PACK_DIR]);
    const root = tmpDir();
    write(root, 'package.json', JSON.stringify({ name: 'x', version: '1.2.3' }));
    write(root, nodePath.join(SOURCE_DIR, 'main.aip'), '# Output\n\n```lua\nreturn 1\n```\n');
    write(root, nodePath.join(SOURCE_DIR, 'util.lua'), 'return {}\n');
    build.writePack(root);
    expect(existsSync(nodePath.join(root, PACK_DIR, 'main.aip'))).toBe(true);
    expect(readFileSync(nodePath.join(root, PACK_DIR, 'lua', 'util.lua'), 'utf8')).toContain('return {}');
  });
});
