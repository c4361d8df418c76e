/**
 * Runs a job of worker-jobs.ts in an isolated worker. Only types come from worker-jobs.ts, so the calling thread
 * never loads the simulator.
 */
import { prestart, runIsolated, siblingModule, type IsolateOptions, type SerializedError } from '../isolate/isolate.ts';
import type { JobName, Jobs } from './worker-jobs.ts';

const JOBS = siblingModule(import.meta.url, './worker-jobs');

export function runJob<K extends JobName>(
  job: K,
  arg: Parameters<Jobs[K]>[0],
  options?: IsolateOptions,
  rebuild?: (e: SerializedError) => Error,
): Promise<Awaited<ReturnType<Jobs[K]>>> {
  return runIsolated<Jobs, K>(JOBS, job, arg, options, rebuild);
}

/** Starts `count` workers for the jobs ahead of time (isolate.ts prestart): they load the runner meanwhile. */
export function prestartJobs(options: Pick<IsolateOptions, 'maxMemoryMb' | 'youngMb'> = {}, count = 1): void {
  prestart(JOBS, options, count);
}
