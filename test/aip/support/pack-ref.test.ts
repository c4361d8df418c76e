import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, parsePackRef } from '../../../src/aip/support/pack-ref.ts';

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
