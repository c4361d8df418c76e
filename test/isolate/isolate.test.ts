import fs from 'node:fs';
import nodePath from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DeadlineError,
  clonable,
  formatMs,
  parseTimeoutSeconds,
  prestart,
  runIsolated,
  serializeError,
  siblingModule,
} from '../../src/isolate/isolate.ts';
import { tmpDir } from '../harness/helpers.ts';

/** A jobs module in plain JS, so the worker loads it without a TypeScript loader. */
function jobsModule(): string {
  const file = nodePath.join(tmpDir(), 'jobs.mjs');
  fs.writeFileSync(
    file,
    [
      'export const serializeError = (e) => ({ name: e.name, message: e.message, fields: { code: e.code } });',
      'export async function echo(arg, port) { port.send(arg.n + 1); return { got: arg }; }',
      "export async function step(arg, port) { port.at('case 1', { start: 1 }); port.at('case 2'); port.send({ done: 2 }); return 'ok'; }",
      "export async function fail() { const e = new Error('bad'); e.name = 'MyError'; e.code = 7; throw e; }",
      "export async function spin(arg, port) { port.at('case 1'); port.note('case 1, stage Data'); for (;;) {} }",
      "import { threadId } from 'node:worker_threads';",
      'export async function whoami() { return threadId; }',
    ].join('\n'),
  );
  return pathToFileURL(file).href;
}

describe('runIsolated', () => {
  it('runs a job in a worker: its partial results, its value, and its error rebuilt with its fields', async () => {
    const jobs = jobsModule();
    const parts: unknown[] = [];
    await expect(runIsolated(jobs, 'echo', { n: 1 }, { onPart: (p) => parts.push(p) })).resolves.toEqual({ got: { n: 1 } });
    expect(parts).toEqual([2]);
    const err = (await runIsolated(jobs, 'fail', {}).catch((e: unknown) => e)) as Error & { code?: number };
    expect([err.name, err.message, err.code]).toEqual(['MyError', 'bad', 7]);
  });

  it('a step can carry a part in its message: handed on as a part, after the step is known', async () => {
    const jobs = jobsModule();
    const seen: unknown[] = [];
    const value = await runIsolated(jobs, 'step', {}, { onProgress: (w) => seen.push(`at ${w}`), onPart: (p) => seen.push(p) });
    expect(value).toBe('ok');
    expect(seen).toEqual(['at case 1', { start: 1 }, 'at case 2', { done: 2 }]);
  });

  it('prestart starts workers ahead; the next jobs with the same limits run in them, at the same time', async () => {
    const jobs = jobsModule();
    prestart(jobs, { youngMb: 8 }, 2);
    const [a, b] = await Promise.all([runIsolated(jobs, 'whoami', {}, { youngMb: 8 }), runIsolated(jobs, 'whoami', {}, { youngMb: 8 })]);
    expect(a).not.toBe(b);
    // both went back to the idle list: the next two jobs take them again instead of starting new workers
    const again = await Promise.all([runIsolated(jobs, 'whoami', {}, { youngMb: 8 }), runIsolated(jobs, 'whoami', {}, { youngMb: 8 })]);
    expect(new Set(again)).toEqual(new Set([a, b]));
  });

  it('a worker given back many times keeps one exit listener (no listener leak warning)', async () => {
    const jobs = jobsModule();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const ids = new Set();
      for (let i = 0; i < 15; i++) ids.add(await runIsolated(jobs, 'whoami', {}, { youngMb: 9 }));
      expect(ids.size).toBe(1);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('stops a job that never ends at its deadline, naming where it was', async () => {
    // the deadline per step starts at the job's first step, so the worker's start-up is not counted
    const err = (await runIsolated(jobsModule(), 'spin', {}, { timeoutMs: 100, restartOnProgress: true }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(DeadlineError);
    expect(err.message).toBe('timed out after 100 ms in case 1, stage Data (the run was stopped; raise --timeout if it needs longer)');
  });
});

describe('isolate helpers', () => {
  it('parseTimeoutSeconds reads seconds into ms; formatMs writes them back', () => {
    expect([parseTimeoutSeconds('1.5'), parseTimeoutSeconds('0'), parseTimeoutSeconds('-1'), parseTimeoutSeconds(''), parseTimeoutSeconds('x')]).toEqual([1500, 0, undefined, undefined, undefined]);
    expect([formatMs(60_000), formatMs(250)]).toEqual(['60 s', '250 ms']);
  });

  it('serializeError and clonable make an error crossable: functions named, cycles cut', () => {
    const e = Object.assign(new Error('m'), { extra: { f: () => 1 } as Record<string, unknown> });
    (e.extra as Record<string, unknown>).self = e.extra;
    const s = serializeError(e);
    expect(s.name).toBe('Error');
    const extra = s.fields.extra as Record<string, unknown>;
    expect(extra.f).toBe('[function]');
    expect(extra.self).toBe(extra);
    expect(() => structuredClone(s)).not.toThrow();
    expect(serializeError('plain')).toEqual({ name: 'Error', message: 'plain', fields: {} });
    expect(clonable({ __proto__x: 1, b: new Uint8Array([1]) })).toEqual({ __proto__x: 1, b: new Uint8Array([1]) });
  });

  it('siblingModule keeps the extension of its base', () => {
    expect(siblingModule('file:///a/b/isolate.ts', './jobs')).toBe('file:///a/b/jobs.ts');
    expect(siblingModule('file:///a/b/isolate.js', '../c/jobs')).toBe('file:///a/c/jobs.js');
  });
});
