import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/errors.ts';
import { simulateInWorker, withWriteLock, workspaceOf } from '../../src/cli/simulate.ts';
import { tmpDir } from '../harness/helpers.ts';

const RUNTIME = nodePath.resolve(import.meta.dirname, '../../fixtures/runtime');

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

describe('simulateInWorker', () => {
  it('runs the simulate job in an isolated worker and hands back its plain-data result', async () => {
    const progress: string[] = [];
    const r = await simulateInWorker({ sim: { workspaceDir: RUNTIME }, request: { name: 'skip-all', baseDir: nodePath.join(RUNTIME, 'agents') } }, {
      onProgress: (w) => progress.push(w),
    });
    expect(r.outcome?.skipped).toBe('nothing to do');
    expect(r.error).toBeUndefined();
    expect(progress).toEqual(['skip-all']);
  });
});
