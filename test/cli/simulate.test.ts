import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { withWriteLock, workspaceOf } from '../../src/cli/simulate.ts';
import { tmpDir } from '../harness/helpers.ts';

describe('simulation options', () => {
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
