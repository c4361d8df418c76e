import { describe, expect, it } from 'vitest';
import { ChunkCache } from '../../src/engine/chunk-cache.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('ChunkCache', () => {
  it('finds a chunk by name and the same source, text or bytes, and nothing for another source', () => {
    const c = new ChunkCache<string>(10);
    c.set('=a', 'return 1', 'p1');
    c.set('@m.lua', bytes('return 2'), 'p2');
    expect(c.get('=a', 'return ' + String(1))).toBe('p1');
    expect(c.get('=a', 'return 2')).toBeUndefined();
    expect(c.get('=b', 'return 1')).toBeUndefined();
    expect(c.get('@m.lua', bytes('return 2'))).toBe('p2');
    expect(c.get('@m.lua', bytes('return 3'))).toBeUndefined();
    // a text chunk and a file's bytes of the same text are different sources
    expect(c.get('@m.lua', 'return 2')).toBeUndefined();
  });

  it('keeps its own copy of bytes: the caller may reuse its buffer', () => {
    const c = new ChunkCache<string>(10);
    const buf = bytes('return 1');
    c.set('@f.lua', buf, 'p');
    buf[7] = 0x32; // "return 2"
    expect(c.get('@f.lua', buf)).toBeUndefined();
    expect(c.get('@f.lua', bytes('return 1'))).toBe('p');
  });

  it('keeps a few sources per name and a bounded number in all, the oldest names leaving first', () => {
    const c = new ChunkCache<number>(3);
    for (let i = 0; i < 6; i++) c.set('=edited', `v${i}`, i);
    expect([0, 1, 2, 3, 4, 5].map((i) => c.get('=edited', `v${i}`))).toEqual([undefined, undefined, 2, 3, 4, 5]);
    const d = new ChunkCache<number>(2);
    d.set('=x', 'x', 1);
    d.set('=y', 'y', 2);
    d.set('=z', 'z', 3);
    expect([d.get('=x', 'x'), d.get('=y', 'y'), d.get('=z', 'z')]).toEqual([undefined, 2, 3]);
  });
});

describe('ChunkCache in bytes', () => {
  it('keeps at most maxBytes, the oldest names leaving first, the one just set staying', () => {
    const c = new ChunkCache<number>(1000, 1000, (source) => (source as string).length);
    for (let i = 0; i < 20; i++) c.set(`=c${i}`, 'x'.repeat(100) + i, i);
    expect(c.bytes).toBeLessThanOrEqual(1000);
    expect(c.get('=c19', 'x'.repeat(100) + 19)).toBe(19);
    expect(c.get('=c0', 'x'.repeat(100) + 0)).toBeUndefined();
    expect(c.size).toBe(9);
  });

  it('does not keep a chunk bigger than an eighth of the cache, nor let it push out the others', () => {
    const c = new ChunkCache<number>(1000, 800, (source) => (source as string).length);
    c.set('=small', 'y'.repeat(50), 1);
    c.set('=giant', 'z'.repeat(101), 2);
    expect(c.get('=giant', 'z'.repeat(101))).toBeUndefined();
    expect(c.get('=small', 'y'.repeat(50))).toBe(1);
    expect(c.bytes).toBe(50);
  });

  it('weighs a text source two bytes a character, twice by default (the source and its compiled form)', () => {
    const c = new ChunkCache<string>(10);
    c.set('=a', 'abcd', 'p');
    c.set('@b.lua', bytes('abcd'), 'q');
    expect(c.bytes).toBe(2 * 8 + 2 * 4);
    // versions of one name past PER_NAME give their bytes back
    for (let i = 0; i < 10; i++) c.set('=a', `v${i}`, 'p');
    expect(c.size).toBe(5);
  });
});
