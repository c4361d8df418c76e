/**
 * Limits shared by every Lua state of one run tree: a top-level run and every `aip.agent.run` it makes, however
 * deep. One instruction budget, one memory cap and one deadline for the whole tree, so an agent cannot multiply
 * its allowance by calling itself (docs/sandbox.md). Costs charged outside the Lua states (files a run's saves
 * hold in memory) count against the same cap.
 */
export interface RunLimits {
  /** instructions the tree may execute (hook steps plus the work charged for big library calls and strings) */
  readonly budget: number;
  used: number;
  exceeded: boolean;
  /** bytes of Lua memory the tree may hold (wasmoon: allocator; fengari: string/table growth guard) */
  readonly memoryMax: number;
  memoryUsed: number;
  memoryExceeded: boolean;
  /** wall-clock milliseconds the tree may run (0: no deadline), checked by the instruction hook */
  readonly timeoutMs: number;
  /** Date.now() past which the tree is stopped (Infinity: none) */
  readonly deadline: number;
  timedOut: boolean;
  /** the message of the state that spent the tree first: every other state re-raises it, so it names the culprit */
  message?: string;
}

export const DEFAULT_MEMORY_MAX = 512 * 1024 * 1024;
/** The deadline of a run tree when the caller gives none: the CLI's own default. */
export const DEFAULT_RUN_TIMEOUT_MS = 60_000;

export function createLimits(budget: number, memoryMax = DEFAULT_MEMORY_MAX, timeoutMs = DEFAULT_RUN_TIMEOUT_MS): RunLimits {
  const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
  return { budget, used: 0, exceeded: false, memoryMax, memoryUsed: 0, memoryExceeded: false, timeoutMs, deadline, timedOut: false };
}

/**
 * Whether the tree is spent: a limit was hit somewhere in it. A spent tree stays spent: every state of it raises
 * the limit's error at its next instruction and at every pcall that caught it, so no caller can resume the run.
 */
export function spent(limits: RunLimits): boolean {
  return limits.exceeded || limits.memoryExceeded || limits.timedOut;
}

export interface LimitMessages {
  budgetMessage: string;
  memoryMessage?: string;
  timeoutMessage?: string;
}

/** The message a state raises once a limit of its tree is hit (memory first: it explains a budget hit too). */
export function limitMessage(limits: RunLimits, m: LimitMessages): string | undefined {
  if (limits.message !== undefined) return limits.message;
  if (limits.memoryExceeded) limits.message = m.memoryMessage ?? 'memory limit exceeded';
  else if (limits.timedOut) limits.message = m.timeoutMessage ?? `timed out after ${limits.timeoutMs / 1000} s`;
  else if (limits.exceeded) limits.message = m.budgetMessage;
  return limits.message;
}

/**
 * Instructions charged for each new state: a fresh state (with the agent run around it: ~1-4 ms) costs about what
 * that much Lua does, and a run that spawns thousands of tiny stages (each under one hook interval) must use up its
 * tree's budget within seconds (with the default budget, ~1,700 states).
 */
export const STATE_COST = 60_000;

/** Charges `n` instructions to the tree; true when the tree is spent (by this charge or before). */
export function chargeInstructions(limits: RunLimits, n: number): boolean {
  if (spent(limits)) return true;
  limits.used += n;
  if (limits.used > limits.budget) limits.exceeded = true;
  return limits.exceeded;
}

/** Marks the tree timed out when its deadline has passed; true when the tree is spent. */
export function checkDeadline(limits: RunLimits): boolean {
  if (limits.deadline !== Infinity && Date.now() > limits.deadline) limits.timedOut = true;
  return spent(limits);
}

/** Charges a new state; true when the tree is spent already (the state must raise at once). */
export function chargeState(limits: RunLimits): boolean {
  return chargeInstructions(limits, STATE_COST);
}

/** Strings shorter than this are not charged by the library wrappers (their work is in the noise). */
export const CHARGE_FROM_BYTES = 4096;
/**
 * Bytes of library work that cost one instruction of budget: the engines' string functions run at ~0.2-1 ns a byte
 * against ~10-30 ns an instruction, so the default budget ends a loop of 16 MiB copies within seconds.
 */
export const BYTES_PER_INSTRUCTION = 4;
/**
 * New strings (and, on lua54, any allocation) of at least this many bytes are charged by size when they are made,
 * whatever made them: the `..` operator and C loops building strings run in one instruction the hook counts once.
 */
export const CHARGE_ALLOC_FROM = 64 * 1024;
