import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { engineOf, timeoutOf, withWriteLock, workspaceOf } from '../../src/cli/simulate.ts';
import { tmpDir } from '../harness/helpers.ts';

describe('simulation options', () => {
  it('engineOf takes fengari or lua54 and refuses anything else as usage', () => {
    expect(engineOf('lua54')).toBe('lua54');
    expect(() => engineOf('luajit')).toThrow(new UsageError('--engine luajit: expected fengari or lua54'));
  });

  it('timeoutOf reads seconds, 0 meaning none, and refuses what a timer cannot wait', () => {
    expect(timeoutOf({})).toBe(60_000);
    expect(timeoutOf({ timeout: '0.5' })).toBe(500);
    expect(timeoutOf({ timeout: '0' })).toBe(0);
    expect(() => timeoutOf({ timeout: 'soon' })).toThrow(/expected a number of seconds/);
    expect(() => timeoutOf({ timeout: '9999999' })).toThrow(/at most 2147483 seconds/);
  });

  it('workspaceOf resolves --workspace and checks it exists', () => {
    const ws = tmpDir();
    expect(workspaceOf({ workspace: ws } as Parameters<typeof workspaceOf>[0])).toBe(nodePath.resolve(ws));
    expect(() => workspaceOf({ workspace: nodePath.join(ws, 'nope') } as Parameters<typeof workspaceOf>[0])).toThrow(UsageError);
  });

  it('withWriteLock holds the lock for --write only: a second writer is refused as usage', async () => {
    const ws = tmpDir();
    const inner = await withWriteLock(true, ws, async () => {
      await expect(withWriteLock(true, ws, async () => 'second')).rejects.toThrow(UsageError);
      expect(await withWriteLock(false, ws, async () => 'dry')).toBe('dry');
      return 'first';
    });
    expect(inner).toBe('first');
    expect(await withWriteLock(true, ws, async () => 'again')).toBe('again');
  });
});
