import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, parsePackRef, readPackRef } from '../../../src/aip/support/pack-ref.ts';

describe('parsePackRef', () => {
  it('reads namespace, name, scope and sub path', () => {
    expect(parsePackRef('pro@coder')).toEqual({ namespace: 'pro', name: 'coder', scope: undefined, subPath: undefined });
    expect(parsePackRef('pro@coder$base/a/b.md')).toEqual({ namespace: 'pro', name: 'coder', scope: 'base', subPath: 'a/b.md' });
    expect(parsePackRef('my_ns@x-1$workspace/')).toEqual({ namespace: 'my_ns', name: 'x-1', scope: 'workspace', subPath: undefined });
  });

  it('refuses malformed references with the reason', () => {
    expect(() => parsePackRef('a@b@c')).toThrow(AgentNotFoundError);
    expect(() => parsePackRef('a@b@c')).toThrow(/expected exactly one '@'/);
    expect(() => parsePackRef('a@b$home')).toThrow(/scope must be \$base or \$workspace/);
    expect(() => parsePackRef('1a@b')).toThrow(/namespace '1a' must match/);
    expect(() => parsePackRef('a@b/../x')).toThrow(/'\.\.' and '\$' are not allowed in the sub path/);
  });
});

describe('readPackRef', () => {
  it('gives the reference, or the reason parsePackRef raises, without raising', () => {
    expect(readPackRef('pro@coder$base/a/b.md')).toEqual(parsePackRef('pro@coder$base/a/b.md'));
    for (const bad of ['a@b@c', 'a@b$home', '1a@b', 'a@b/../x', '.aipack/.prompt/pro@coder/', 'no-at-all']) {
      const reason = readPackRef(bad);
      expect(typeof reason).toBe('string');
      expect(() => parsePackRef(bad)).toThrow(new AgentNotFoundError(reason as string));
    }
  });
});
