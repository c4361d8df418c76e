import { describe, expect, it } from 'vitest';
import { writePack } from '../../src/pack/build.ts';
import { stalePackFiles } from '../../src/harness/pack-freshness.ts';
import { tmpDir, write } from './helpers.ts';

describe('stalePackFiles', () => {
  it('is empty for a freshly built pack, and names the files that lag behind lua/', async () => {
    const root = tmpDir();
    write(root, 'package.json', JSON.stringify({ name: 'x', version: '1.2.3' }));
    write(root, 'lua/main.aip', '# Output\n\n```lua\nreturn 1\n```\n');
    write(root, 'lua/util.lua', 'return {}\n');
    writePack(root);
    expect(await stalePackFiles(root)).toEqual([]);
    write(root, 'lua/util.lua', 'return { changed = true }\n');
    write(root, 'lua/new.lua', 'return {}\n');
    expect(await stalePackFiles(root)).toEqual(['lua/new.lua', 'lua/util.lua']);
  });

  it('has nothing to compare without sources', async () => {
    expect(await stalePackFiles(tmpDir())).toEqual([]);
  });
});
