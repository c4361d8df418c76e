import { describe, expect, it } from 'vitest';
import { checkRenderable, jsonPrefix, jsonSize, RenderTooBigError } from '../../src/support/json-size.ts';

const MIB = 1024 * 1024;

describe('jsonSize', () => {
  it('counts a shared string each time it is written, measuring each shared table once', () => {
    const s = 'x'.repeat(MIB);
    const list = Array(2000).fill(s);
    expect(jsonSize(list, 64 * MIB)).toEqual({ over: expect.any(Number) });
    expect(jsonSize(Array(10).fill(s), 64 * MIB)).toEqual({ size: expect.any(Number) });
    // a table of 40 references to a table of 40 references ... 8 deep: 40^8 leaves, measured in a few steps
    let t: unknown = 'leaf';
    for (let i = 0; i < 8; i++) t = Array(40).fill(t);
    expect('over' in jsonSize(t)).toBe(true);
  });

  it('finds a table inside itself', () => {
    const t: Record<string, unknown> = { a: 1 };
    t.self = t;
    expect(jsonSize(t)).toEqual({ cycle: true });
    expect(() => checkRenderable(t, 'the result')).toThrow('the result holds itself (a table inside itself) and cannot be written out');
  });

  it('checkRenderable names what is too big', () => {
    expect(() => checkRenderable(Array(2000).fill('x'.repeat(MIB)), "the run's result")).toThrow(RenderTooBigError);
    expect(() => checkRenderable({ a: [1, 'b'] }, 'x')).not.toThrow();
  });
});

describe('jsonPrefix', () => {
  it('writes small values as JSON.stringify does', () => {
    for (const v of [{ a: [1, 'b', null, true], c: { d: 'e"f' } }, [undefined, 2], { skip: undefined, k: 1 }, 'text', 3.5, new Date(0)]) {
      expect(jsonPrefix(v, 1000)).toBe(JSON.stringify(v));
    }
  });

  it('stops at the cut, never writing a big value whole', () => {
    const s = 'x'.repeat(MIB);
    const out = jsonPrefix(Array(2000).fill(s), 200);
    expect(out).toHaveLength(200);
    expect(out.endsWith('…')).toBe(true);
    expect(out).toBe(`${JSON.stringify([s]).slice(0, 199)}…`);
  });

  it('writes a table inside itself as [cycle]', () => {
    const t: Record<string, unknown> = { a: 1 };
    t.self = t;
    expect(jsonPrefix(t, 100)).toBe('{"a":1,"self":"[cycle]"}');
  });
});
