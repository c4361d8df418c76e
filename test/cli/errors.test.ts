import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_TIMEOUT_SECONDS, UsageError, positiveIntFlag, requireDir, timeoutOf } from '../../src/cli/errors.ts';
import { tmpDir, write } from '../harness/helpers.ts';

describe('usage checks', () => {
  it('timeoutOf reads seconds, 0 meaning none, and refuses what a timer cannot wait', () => {
    expect(timeoutOf({})).toBe(60_000);
    expect(timeoutOf({ timeout: '0.5' })).toBe(500);
    expect(timeoutOf({ timeout: '0' })).toBe(0);
    expect(() => timeoutOf({ timeout: 'soon' })).toThrow(/expected a number of seconds/);
    expect(() => timeoutOf({ timeout: '9999999' })).toThrow(/at most 2147483 seconds/);
  });

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
