import { describe, expect, it } from 'vitest';
import { filesUnder, type DirEntry } from '../../src/support/vfs.ts';

describe('filesUnder', () => {
  it('lists every file below a directory, depth first', () => {
    const tree: Record<string, DirEntry[]> = {
      '/r': [{ name: 'a', isDir: true }, { name: 'f.txt', isDir: false }],
      '/r/a': [{ name: 'b', isDir: true }, { name: 'g.txt', isDir: false }],
      '/r/a/b': [],
    };
    expect(filesUnder({ listDir: (d) => tree[d] ?? [] }, '/r')).toEqual(['/r/a/g.txt', '/r/f.txt']);
  });
});
