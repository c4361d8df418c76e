import { describe, expect, it } from 'vitest';
import { appendInto } from '../../src/support/append-room.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('appendInto', () => {
  it('gives the bytes followed by what is added, leaving the bytes it was given as they were', () => {
    const first = bytes('one\n');
    const grown = appendInto(first, undefined, bytes('two\n'));
    expect(text(grown.data)).toBe('one\ntwo\n');
    expect(text(first)).toBe('one\n');
  });

  it('keeps no room for a small file, an eighth more for a large one, and grows into that room in place', () => {
    expect(appendInto(bytes('a'), undefined, bytes('b')).room.length).toBe(2);
    const big = new Uint8Array(80 * 1024).fill(65);
    const once = appendInto(big, undefined, bytes('x'));
    expect(once.room.length).toBe(Math.floor((80 * 1024 + 1) * 1.125));
    const copyTaken = once.data.slice();
    const twice = appendInto(once.data, once.room, bytes('yz'));
    expect(twice.room).toBe(once.room);
    expect(twice.data.length).toBe(80 * 1024 + 3);
    expect(text(twice.data.subarray(-3))).toBe('xyz');
    // what a reader took before is its own
    expect(copyTaken.length).toBe(80 * 1024 + 1);
    expect(once.data.length).toBe(80 * 1024 + 1);
  });

  it('never writes into a room whose start is not the bytes given', () => {
    const big = new Uint8Array(80 * 1024).fill(66);
    const once = appendInto(big, undefined, bytes('x'));
    // a file rewritten since (other bytes) with the old room still beside it: a new room is made
    const other = bytes('fresh');
    const grown = appendInto(other, once.room, bytes('!'));
    expect(grown.room).not.toBe(once.room);
    expect(text(grown.data)).toBe('fresh!');
    expect(once.room[0]).toBe(66);
  });
});
