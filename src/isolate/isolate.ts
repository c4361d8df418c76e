/**
 * The wall-clock deadline of a run, enforced from outside the Lua VM: the run happens in a worker thread with
 * memory limits, and the worker is terminated when the deadline passes. No Lua code, library call or bug in the
 * simulator can then hang or crash the CLI or the user's test process; the error names where the run was.
 */
import nodePath from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

export const DEFAULT_TIMEOUT_MS = 60_000;
/** V8 heap of a run's worker: a runaway allocation ends the run, not the process */
const DEFAULT_MAX_MEMORY_MB = 2048;
const DEFAULT_YOUNG_MB = 64;
/** the least time a worker gets before its first progress note when the deadline is per step */
const STARTUP_MS = 30_000;

export interface IsolateOptions {
  /** wall-clock deadline in ms (default 60 s); 0 means none */
  timeoutMs?: number;
  /** heap limit of the worker in MiB (default 2048) */
  maxMemoryMb?: number;
  /**
   * the worker's young generation in MiB (default 64): a smaller one is collected more often, so a long job that
   * makes much short-lived garbage (a suite of thousands of cases) keeps a lower peak RSS, at a little more GC time
   */
  youngMb?: number;
  /** called with each partial result the job sends */
  onPart?: (value: unknown) => void;
  /** called with each progress note the job sends */
  onProgress?: (where: string) => void;
  /** the deadline restarts at each progress note (a deadline per case rather than per job) */
  restartOnProgress?: boolean;
  /** stops the job (its worker is terminated) and rejects with the signal's reason */
  signal?: AbortSignal;
}

/** The run passed its wall-clock deadline and was stopped. */
export class DeadlineError extends Error {
  constructor(
    readonly ms: number,
    /** where the run was (agent and stage, or case) when it was stopped */
    readonly where: string | undefined,
  ) {
    super(`timed out after ${formatMs(ms)}${where ? ` in ${where}` : ''} (the run was stopped; raise --timeout if it needs longer)`);
    this.name = 'DeadlineError';
  }
}

/** The run's worker died (out of memory, or a crash of the runtime itself). */
export class IsolateCrashError extends Error {
  constructor(
    message: string,
    readonly where: string | undefined,
  ) {
    super(message);
    this.name = 'IsolateCrashError';
  }
}

export const formatMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** The error a job threw, as it crosses the thread boundary: its class name, message and own fields. */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

const WORKER = new URL('./worker.mjs', import.meta.url);

/** What a worker hands a job besides its argument. */
export interface Port {
  /**
   * a step begins (a case): where the job is, named by a DeadlineError; a deadline per step restarts. `part`, when
   * given, travels in the same message and is handed on as `send` hands a part: a message costs the worker ~0.1 ms.
   */
  at(where: string, part?: unknown): void;
  /**
   * where the job is now (agent and stage), named by a DeadlineError: kept in memory shared with the parent, which
   * reads it only when the deadline passes, so a note costs no message (a run notes every stage of every call)
   */
  note(where: string): void;
  /** a partial result (e.g. one case file's results) */
  send(value: unknown): void;
}

/**
 * A jobs module: named async functions of (plain-data argument, port), plus the `serializeError` the worker
 * reports a job's error with.
 */
export type JobTable = Record<string, (arg: any, port: Port) => unknown>;

/** The URL of module `rel` (no extension) beside `base`, with `base`'s own extension (.ts from source, .js built). */
export function siblingModule(base: string, rel: string): string {
  return new URL(rel + nodePath.extname(fileURLToPath(base)), base).href;
}

/**
 * Idle workers by heap limit and jobs module: a finished job hands its worker back; one stopped by a deadline is
 * terminated. Up to MAX_IDLE are kept per key, one for each worker a suite run splits over.
 */
const idle = new Map<string, Worker[]>();
const MAX_IDLE = 2;
let nextId = 0;

/** bytes of a worker's shared note (Port.note): a sequence number, a length, then the UTF-8 text */
export const NOTE_BYTES = 4096;
const notes = new WeakMap<Worker, SharedArrayBuffer>();

/** The worker's last note (worker.mjs writes it under a sequence number that is odd while it writes). */
function readNote(w: Worker): string | undefined {
  const sab = notes.get(w);
  if (!sab) return undefined;
  const head = new Int32Array(sab, 0, 2);
  for (let tries = 0; tries < 100; tries++) {
    const seq = Atomics.load(head, 0);
    if (seq % 2 === 1) continue;
    const len = Atomics.load(head, 1);
    const text = new TextDecoder().decode(new Uint8Array(sab, 8, len).slice());
    if (Atomics.load(head, 0) === seq) return len > 0 ? text : undefined;
  }
  return undefined;
}

const keyOf = (jobsUrl: string, maxMemoryMb: number, youngMb: number) => `${maxMemoryMb} ${youngMb} ${jobsUrl}`;

function takeWorker(jobsUrl: string, maxMemoryMb: number, youngMb: number): Worker {
  const w = idle.get(keyOf(jobsUrl, maxMemoryMb, youngMb))?.shift();
  if (w) {
    w.ref();
    return w;
  }
  return createWorker(jobsUrl, maxMemoryMb, youngMb);
}

function createWorker(jobsUrl: string, maxMemoryMb: number, youngMb: number): Worker {
  const note = new SharedArrayBuffer(NOTE_BYTES);
  const created = new Worker(WORKER, {
    workerData: { jobsUrl, note },
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: youngMb },
  });
  notes.set(created, note);
  created.on('error', () => undefined); // while idle nobody listens; a running job has its own listener
  // one that dies while idle is simply forgotten (one listener for the worker's life: it is given back many times)
  created.once('exit', () => {
    const list = idle.get(keyOf(jobsUrl, maxMemoryMb, youngMb));
    const at = list?.indexOf(created) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  });
  return created;
}

function giveBack(w: Worker, jobsUrl: string, maxMemoryMb: number, youngMb: number): void {
  const key = keyOf(jobsUrl, maxMemoryMb, youngMb);
  const list = idle.get(key) ?? [];
  if (list.length >= MAX_IDLE) {
    void w.terminate();
    return;
  }
  // an idle worker must not keep the process alive
  w.unref();
  list.push(w);
  idle.set(key, list);
}

/**
 * Starts workers for the jobs module ahead of their jobs, until `count` (at most MAX_IDLE) are idle: each loads the
 * module (~0.2 s) while the caller still prepares the job; the next runIsolated calls with the same limits take them.
 */
export function prestart(jobsUrl: string, options: Pick<IsolateOptions, 'maxMemoryMb' | 'youngMb'> = {}, count = 1): void {
  const maxMemoryMb = options.maxMemoryMb ?? DEFAULT_MAX_MEMORY_MB;
  const youngMb = options.youngMb ?? DEFAULT_YOUNG_MB;
  const have = idle.get(keyOf(jobsUrl, maxMemoryMb, youngMb))?.length ?? 0;
  for (let i = have; i < Math.min(count, MAX_IDLE); i++) giveBack(createWorker(jobsUrl, maxMemoryMb, youngMb), jobsUrl, maxMemoryMb, youngMb);
}

/**
 * Runs `jobs[job](arg)` of the jobs module at `jobsUrl` in a worker thread under the deadline. Resolves to the
 * job's value; rejects with a DeadlineError, an IsolateCrashError, or the job's own error rebuilt by `rebuild`.
 */
export function runIsolated<J extends JobTable, K extends keyof J & string>(
  jobsUrl: string,
  job: K,
  arg: Parameters<J[K]>[0],
  options: IsolateOptions = {},
  rebuild: (e: SerializedError) => Error = plainError,
): Promise<Awaited<ReturnType<J[K]>>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxMemoryMb = options.maxMemoryMb ?? DEFAULT_MAX_MEMORY_MB;
  const youngMb = options.youngMb ?? DEFAULT_YOUNG_MB;
  return new Promise((resolve, reject) => {
    const id = nextId++;
    let stepWhere: string | undefined;
    let settled = false;
    const worker = takeWorker(jobsUrl, maxMemoryMb, youngMb);
    // a step clears the note (worker.mjs), so a note is always the more precise of the two
    const where = () => readNote(worker) ?? stepWhere;
    const finish = (fn: () => void, healthy: boolean) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (healthy) giveBack(worker, jobsUrl, maxMemoryMb, youngMb);
      else void worker.terminate();
      fn();
    };
    const expire = () => {
      const at = where();
      finish(() => reject(new DeadlineError(timeoutMs, at)), false);
    };
    // with a deadline per step, the worker's start-up (loading the runtime: ~1 s, more on a busy machine) is not
    // charged to the first step
    let timer = timeoutMs > 0 ? setTimeout(expire, options.restartOnProgress ? Math.max(timeoutMs, STARTUP_MS) : timeoutMs) : undefined;
    const onMessage = (m: { id: number; kind: string; where?: string; value?: unknown; error?: SerializedError }) => {
      if (m.id !== id) return;
      if (m.kind === 'at') {
        stepWhere = m.where;
        options.onProgress?.(stepWhere as string);
        if (timer && options.restartOnProgress) {
          clearTimeout(timer);
          timer = setTimeout(expire, timeoutMs);
        }
        if (m.value !== undefined) options.onPart?.(m.value);
      } else if (m.kind === 'part') options.onPart?.(m.value);
      else if (m.kind === 'done') finish(() => resolve(m.value as Awaited<ReturnType<J[K]>>), true);
      else if (m.kind === 'failed') finish(() => reject(rebuild(m.error as SerializedError)), true);
    };
    const onError = (err: Error & { code?: string }) => {
      const place = where();
      const at = place ? ` in ${place}` : '';
      const message =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `memory limit exceeded${at} (the run used more than ${maxMemoryMb} MiB and was stopped)`
          : `the simulated run crashed${at}: ${err.message}`;
      finish(() => reject(new IsolateCrashError(message, place)), false);
    };
    const onExit = (code: number) => {
      const place = where();
      finish(() => reject(new IsolateCrashError(`the simulated run stopped unexpectedly (worker exit code ${code})${place ? ` in ${place}` : ''}`, place)), false);
    };
    const onAbort = () => finish(() => reject(options.signal?.reason), false);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ id, job, arg });
  });
}

function plainError(e: SerializedError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  Object.assign(err, e.fields);
  return err;
}

/** Parses a `--timeout` value in seconds (0 = no deadline) into ms; undefined for a bad value. */
export function parseTimeoutSeconds(text: string): number | undefined {
  const s = Number(text);
  if (!Number.isFinite(s) || s < 0 || text.trim() === '') return undefined;
  return Math.round(s * 1000);
}

export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) fields[k] = v;
  return { name: err.name, message: err.message, fields: clonable(fields) };
}

/** A deep copy that structured clone accepts: functions and other host objects become strings, cycles are cut. */
export function clonable<T>(value: T): T {
  const seen = new Map<object, unknown>();
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? `[${typeof v}]` : v;
    if (v instanceof Uint8Array) return v;
    if (seen.has(v)) return seen.get(v);
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      seen.set(v, out);
      for (let i = 0; i < v.length; i++) out[i] = walk(v[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    // defineProperty: a key "__proto__" (Lua allows it) stays an ordinary key
    for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: walk(x), enumerable: true, writable: true, configurable: true });
    return out;
  };
  return walk(value) as T;
}
