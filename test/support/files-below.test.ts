import { describe, expect, it } from 'vitest';
import { FilesBelow } from '../../src/support/files-below.ts';

describe('FilesBelow', () => {
  it('names what a folder holds: each path in it, and each name that leads to paths below', () => {
    const below = new FilesBelow();
    below.count('/w/a.txt', 1);
    below.count('/w/d/one.txt', 1);
    below.count('/w/d/two.txt', 1);
    below.count('/w/d', 1);
    expect(Object.fromEntries(below.in('/w') ?? [])).toEqual({ 'a.txt': { self: 1, below: 0 }, d: { self: 1, below: 2 } });
    expect([...(below.in('/') ?? [])]).toEqual([['w', { self: 0, below: 4 }]]);
    below.count('/w/d', -1);
    below.count('/w/d/one.txt', -1);
    expect(below.in('/w')?.get('d')).toEqual({ self: 0, below: 1 });
    expect(below.in('/w/a.txt')).toBeUndefined();
  });

  it('knows every folder a file lies in, up to the root, and not the file itself', () => {
    const below = new FilesBelow();
    below.count('/w/a/b/c.txt', 1);
    for (const dir of ['/w/a/b', '/w/a', '/w', '/']) expect(below.has(dir)).toBe(true);
    expect(below.has('/w/a/b/c.txt')).toBe(false);
    expect(below.has('/w/x')).toBe(false);
    // a sibling name that starts like a folder is not in it
    expect(below.has('/w/a/b/c')).toBe(false);
  });

  it('forgets a folder when its last file leaves, not before', () => {
    const below = new FilesBelow();
    below.count('/w/a/one.txt', 1);
    below.count('/w/a/deep/two.txt', 1);
    below.count('/w/a/one.txt', -1);
    expect(below.has('/w/a')).toBe(true);
    expect(below.has('/w/a/deep')).toBe(true);
    below.count('/w/a/deep/two.txt', -1);
    for (const dir of ['/w/a/deep', '/w/a', '/w', '/']) expect(below.has(dir)).toBe(false);
  });
});
