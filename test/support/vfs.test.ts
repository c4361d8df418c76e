import { describe, expect, it } from 'vitest';
import { delegateTo, filesUnder, type DirEntry, type Vfs } from '../../src/support/vfs.ts';

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

describe('delegateTo', () => {
  it('hands every method on with its arguments and gives back its answer', () => {
    const calls: unknown[][] = [];
    const answer = (name: string) => (...args: unknown[]) => (calls.push([name, ...args]), `${name} answer`);
    const methods = ['readFile', 'readBytes', 'stat', 'isFile', 'isDir', 'listDir', 'writeFile', 'appendFile', 'deleteFile', 'deleteDir', 'mkdirp', 'changes', 'snapshot', 'pending', 'commit'] as const;
    const inner = Object.fromEntries([['workspaceDir', '/ws'], ...methods.map((m) => [m, answer(m)])]) as unknown as Vfs;
    const outer = delegateTo(inner) as unknown as Record<string, unknown>;
    // every method of the interface, and nothing else
    expect(Object.keys(outer).sort()).toEqual(['workspaceDir', ...methods].sort());
    expect(outer.workspaceDir).toBe('/ws');
    for (const m of methods) expect((outer[m] as (...a: unknown[]) => unknown)('/ws/a', 'x')).toBe(`${m} answer`);
    const taking = { readFile: 2, readBytes: 2, writeFile: 2, appendFile: 2, changes: 0, snapshot: 0, pending: 0, commit: 0 } as Record<string, number>;
    expect(calls).toEqual(methods.map((m) => [m, ...['/ws/a', 'x'].slice(0, taking[m] ?? 1)]));
  });

  it('hands readLimit on only when the Vfs it wraps has one', () => {
    const base = delegateTo({ workspaceDir: '/ws' } as unknown as Vfs);
    expect('readLimit' in base).toBe(false);
    expect(delegateTo({ workspaceDir: '/ws', readLimit: () => 7 } as unknown as Vfs).readLimit?.()).toBe(7);
  });
});
