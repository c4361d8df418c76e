import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TIMEOUT_SECONDS, UsageError, positiveIntFlag, requireDir } from '../../src/cli/errors.ts';
import { tmpDir, write } from '../harness/helpers.ts';

describe('usage checks', () => {
  it('requireDir names the flag and what is wrong', () => {
    const dir = tmpDir();
    expect(() => requireDir('--workspace', 'ws', dir)).not.toThrow();
    expect(() => requireDir('--workspace', 'typo', nodePath.join(dir, 'typo'))).toThrow(new UsageError('--workspace typo: no such directory'));
    const file = write(dir, 'f.txt', '');
    expect(() => requireDir('--workspace', 'f.txt', file)).toThrow(new UsageError('--workspace f.txt: not a directory'));
  });

  it('positiveIntFlag takes whole positive numbers up to a maximum', () => {
    expect(positiveIntFlag('--bail', '3')).toBe(3);
    for (const bad of ['0', '-1', '1.5', 'x', ' ']) expect(() => positiveIntFlag('--bail', bad), bad).toThrow(`--bail ${bad}: expected a positive integer`);
    expect(() => positiveIntFlag('--n', '11', 10)).toThrow(new UsageError('--n 11: at most 10'));
    expect(MAX_TIMEOUT_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
  });
});
