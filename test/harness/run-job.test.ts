import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/harness/run-job.ts';

const WS = fileURLToPath(new URL('../../fixtures/runtime', import.meta.url)).replace(/\/$/, '');

describe('runJob', () => {
  it('runs a worker job in an isolated worker and hands back its plain-data result', async () => {
    const progress: string[] = [];
    const r = await runJob('simulate', { sim: { workspaceDir: WS }, request: { name: 'skip-all', baseDir: nodePath.join(WS, 'agents') } }, {
      onProgress: (w) => progress.push(w),
    });
    expect(r.outcome?.skipped).toBe('nothing to do');
    expect(r.error).toBeUndefined();
    expect(progress).toEqual(['skip-all']);
  });
});
