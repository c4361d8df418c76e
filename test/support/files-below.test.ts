import { describe, expect, it } from 'vitest';
import { FilesBelow } from '../../src/support/files-below.ts';

describe('FilesBelow', () => {
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
