/**
 * The pattern host functions (pattern-hosts.ts) over a fake engine stack: what each reads, what it pushes, and that
 * matcher errors become Lua errors through the engine's `raise`.
 */
import { describe, expect, it } from 'vitest';
import { patternHost, type PatternIO } from '../../src/engine/pattern-hosts.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A fake thread: the arguments, then what the host pushed ("nil", numbers, strings). */
function host(args: unknown[]) {
  const pushed: unknown[] = [];
  let charged = 0;
  const arg = (i: number) => args[i - 1];
  const io: PatternIO<null> = {
    bytes: (_L, i) => bytes(String(arg(i))),
    integer: (_L, i) => arg(i) as number,
    isNil: (_L, i) => arg(i) === undefined || arg(i) === null,
    boolean: (_L, i) => Boolean(arg(i)),
    pushInteger: (_L, n) => void pushed.push(n),
    pushNil: () => void pushed.push('nil'),
    checkStack: () => {},
    pushSubject: (_L, init, len) => void pushed.push(text(bytes(String(arg(1))).subarray(init, init + len))),
    pushBytes: (_L, b) => void pushed.push(text(b)),
    charge: (_L, n) => void (charged += n),
    tooLarge: () => {
      throw new Error('too large');
    },
    memoryMax: () => 1 << 20,
    raise: (_L, message) => {
      throw new Error(`raised: ${message}`);
    },
  };
  return { fns: patternHost('5.4', io), pushed, charged: () => charged };
}

describe('pattern host functions', () => {
  it('pfind as string.find: 1-based positions then captures; as string.match: the captures only', () => {
    const h = host(['hello world', '(o)%s(w)', 1, true]);
    expect(h.fns.pfind(null)).toBe(4);
    expect(h.pushed).toEqual([5, 7, 'o', 'w']);
    const m = host(['key=value', '(%w+)=(%w+)', 1, false]);
    expect(m.fns.pfind(null)).toBe(2);
    expect(m.pushed).toEqual(['key', 'value']);
    const none = host(['abc', 'x', 1, true]);
    expect(none.fns.pfind(null)).toBe(1);
    expect(none.pushed).toEqual(['nil']);
  });

  it('position captures are pushed as integers', () => {
    const h = host(['abc', '()b()', 1, false]);
    expect(h.fns.pfind(null)).toBe(2);
    expect(h.pushed).toEqual([2, 3]);
  });

  it('pgsub pushes the result and the count, and charges its steps', () => {
    const h = host(['a b c', '%s', '-', 100]);
    expect(h.fns.pgsub(null)).toBe(2);
    expect(h.pushed).toEqual(['a-b-c', 2]);
    expect(h.charged()).toBeGreaterThan(0);
  });

  it('pplain finds a plain needle (1-based start and end) or pushes nil', () => {
    const h = host(['a.b.c', '.c', 1]);
    expect(h.fns.pplain(null)).toBe(2);
    expect(h.pushed).toEqual([4, 5]);
    const none = host(['abc', 'zz', 1]);
    expect(none.fns.pplain(null)).toBe(1);
    expect(none.pushed).toEqual(['nil']);
  });

  it('a malformed pattern is raised through the engine, with the library\'s message', () => {
    expect(() => host(['abc', '(', 1, true]).fns.pfind(null)).toThrow(/^raised: .*unfinished capture/);
  });
});
