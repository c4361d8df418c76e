import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/harness/run-job.ts';
import { AGENTS } from './helpers.ts';

describe('runJob', () => {
  it('runs a worker job in an isolated worker and hands back its plain-data result', async () => {
    const progress: string[] = [];
    const parts: unknown[] = [];
    const file = nodePath.join(AGENTS, 'answer-cleaner.contract.toml');
    const r = await runJob('suite', { files: [file], options: {} }, { onProgress: (w) => progress.push(w), onPart: (p) => parts.push(p) });
    expect([r.passed, r.failed]).toEqual([2, 0]);
    expect(progress.map((w) => w.replace(/ of .*/, ''))).toEqual(['case "removes DEBUG lines"', 'case "leaves a clean answer alone"']);
    expect(parts.filter((m) => Object.hasOwn(m as object, 'done'))).toHaveLength(2);
  });
});
