/**
 * How AIPack runs a run's tasks (aipack-ai/aipack `src/run/run_agent.rs`, `run_tasks`): tasks are started in input
 * order, at most `input_concurrency` are in flight (when the limit is reached, the next one starts when one of them
 * finishes), outputs are put back in input order, and the first failure fails the run unless
 * `allow_run_on_task_fail`. A concurrency of 0 behaves as 1 (AIPack waits after every start).
 *
 * The simulator is synchronous: tasks really run one after another, in input order, and "in flight" is modelled on a
 * virtual clock. A task's virtual duration is the simulated model latency it waited for (0 unless a bench sets one),
 * so the schedule says when each task would start and end in AIPack with that latency.
 */

export interface TaskSlot {
  /** 1-based input index */
  num: number;
  /** virtual start and end (ms) */
  start: number;
  end: number;
}

export interface PoolClock {
  /** the current virtual time (ms); a task advances it while it runs */
  now: number;
}

export interface PoolResult<T> {
  /** one entry per started task, in input order */
  outputs: T[];
  slots: TaskSlot[];
  /** the virtual time when the last task ended */
  end: number;
}

/**
 * Runs `count` tasks with at most `concurrency` in flight on `clock`. `run(i)` runs task i (0-based) and may advance
 * the clock; a throw stops the pool (no task after it starts) and is rethrown, with the clock at that task's end.
 */
export function runPool<T>(count: number, concurrency: number | undefined, clock: PoolClock, run: (index: number) => T): PoolResult<T> {
  const width = Math.max(1, Math.floor(concurrency ?? 1));
  const origin = clock.now;
  // the virtual time at which each of the `width` places becomes free
  const free: number[] = new Array<number>(Math.min(width, Math.max(count, 1))).fill(origin);
  const outputs: T[] = [];
  const slots: TaskSlot[] = [];
  let end = origin;
  for (let i = 0; i < count; i++) {
    // the next input starts as soon as one place is free (the earliest one)
    let place = 0;
    for (let p = 1; p < free.length; p++) if (free[p] < free[place]) place = p;
    const start = free[place];
    clock.now = start;
    try {
      outputs.push(run(i));
    } finally {
      free[place] = clock.now;
      slots.push({ num: i + 1, start, end: clock.now });
      end = Math.max(end, clock.now);
    }
  }
  clock.now = end;
  return { outputs, slots, end };
}

/** A permutation of 0..count-1 (input order when `order` is not one). */
export function taskOrder(order: number[] | undefined, count: number): number[] {
  const identity = Array.from({ length: count }, (_, i) => i);
  if (!order || order.length !== count) return identity;
  const sorted = [...order].sort((a, b) => a - b);
  return sorted.every((v, i) => v === i) ? order : identity;
}
