/**
 * Limits shared by every Lua state of one run tree: a top-level run and every `aip.agent.run` it makes, however
 * deep. One instruction budget and one memory cap for the whole tree, so an agent cannot multiply its allowance
 * by calling itself (docs/sandbox.md).
 */
export interface RunLimits {
  /** instructions the tree may execute (hook steps plus the work charged for big library calls) */
  readonly budget: number;
  used: number;
  exceeded: boolean;
  /** bytes of Lua memory the tree may hold (wasmoon: allocator; fengari: string/table growth guard) */
  readonly memoryMax: number;
  memoryUsed: number;
  memoryExceeded: boolean;
  /**
   * instructions left, once a limit is hit, to the states that were already running (the callers of the run that
   * hit it): they may handle the failure, as the coder pipeline reports a failed sub-agent. The state that hit the
   * limit and every state created after it stop at once.
   */
  grace: number;
  /**
   * set when a cost charged outside the Lua states (files a run's saves hold in memory) crosses a limit: no state
   * of the tree gets grace then, every one stops at its next check
   */
  stopAll?: boolean;
}

export const GRACE = 1_000_000;

export const DEFAULT_MEMORY_MAX = 512 * 1024 * 1024;

export function createLimits(budget: number, memoryMax = DEFAULT_MEMORY_MAX): RunLimits {
  return { budget, used: 0, exceeded: false, memoryMax, memoryUsed: 0, memoryExceeded: false, grace: GRACE };
}

/** The message a state raises once a limit of its tree is hit (memory first: it explains a budget hit too). */
export function limitMessage(limits: RunLimits, budgetMessage: string, memoryMessage: string): string | undefined {
  if (limits.memoryExceeded) return memoryMessage;
  if (limits.exceeded) return budgetMessage;
  return undefined;
}

/**
 * Whether a state must stop now: its tree is over a limit, and it hit the limit itself (`hitHere`), was created
 * after, or the callers' grace is used up. Charges `n` to the grace otherwise.
 */
export function mustStop(limits: RunLimits, hitHere: boolean, n: number): boolean {
  if (!limits.exceeded && !limits.memoryExceeded) return false;
  if (hitHere || limits.stopAll) return true;
  limits.grace -= n;
  return limits.grace < 0;
}

/**
 * Instructions charged for each new state: a fresh state (with the agent run around it: ~1-4 ms) costs about what
 * that much Lua does, and a run that spawns thousands of tiny stages (each under one hook interval) must use up its
 * tree's budget within seconds (with the default budget, ~1,700 states).
 */
export const STATE_COST = 60_000;

/**
 * Charges `n` instructions to the tree while it is within its limits; true when this charge is the one that
 * crossed the budget (the charging state hit the limit itself).
 */
export function chargeInstructions(limits: RunLimits, n: number): boolean {
  if (limits.exceeded || limits.memoryExceeded) return false;
  limits.used += n;
  if (limits.used <= limits.budget) return false;
  limits.exceeded = true;
  return true;
}

/** Charges a new state; true when the tree is over a limit already (the state must raise at once). */
export function chargeState(limits: RunLimits): boolean {
  chargeInstructions(limits, STATE_COST);
  return limits.exceeded || limits.memoryExceeded;
}

/** Strings shorter than this are not charged by the library wrappers (their work is in the noise). */
export const CHARGE_FROM_BYTES = 4096;
/**
 * Bytes of library work that cost one instruction of budget: the engines' string functions run at ~0.2-1 ns a byte
 * against ~10-30 ns an instruction, so the default budget ends a loop of 16 MiB copies within seconds.
 */
export const BYTES_PER_INSTRUCTION = 4;
