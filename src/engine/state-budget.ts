/**
 * The engine core's first layer (under sandboxed-state.ts): the budget policy of a state. Instructions are charged
 * to the run tree where they are spent (the count hook's ticks, work a library function or a host conversion does
 * in one call), the deadline is looked at now and then, and once a limit is hit the tree is spent: every later
 * instruction raises the limit's error again, so no pcall can resume it.
 */
import type { StateOptions } from './engine.ts';
import type { LuaApi } from './lua-api.ts';
import { hostWork } from './conversion.ts';
import { BYTES_PER_INSTRUCTION, CHARGE_FROM_BYTES, chargeInstructions, chargeState, checkDeadline, createLimits, limitMessage, type RunLimits } from './limits.ts';

/** instructions between two hook calls */
export const HOOK_INTERVAL = 1000;
/** hooks between two looks at the clock (the run tree's deadline) */
const DEADLINE_CHECK_HOOKS = 16;

/** The states whose Lua runs now, innermost last (a host call runs in the last: nested runs stack up). */
const active: { chargeHostWork(L: unknown, nodes: number, bytes: number): string | undefined }[] = [];
hostWork.charge = (L, nodes, bytes) => active[active.length - 1]?.chargeHostWork(L, nodes, bytes);

export abstract class BudgetedState<L> {
  // not readonly: a state given back to its engine's pool is taken again by another stage (reuse)
  limits: RunLimits;
  protected memoryMessage: string;
  /** instructions this state charged */
  protected used = 0;
  protected hooks = 0;
  /** > 0 while Lua code of this state runs (limits that watch memory apply then; set-up is the simulator's) */
  running = 0;

  protected constructor(
    protected readonly api: LuaApi<L>,
    protected options: StateOptions,
  ) {
    this.limits = options.limits ?? createLimits(options.budget);
    this.memoryMessage = options.memoryMessage ?? 'memory limit exceeded';
  }

  /** makes the hook fire at every instruction of the main thread and of `L` (hooks are per thread) */
  protected abstract hookEveryInstruction(L: L): void;

  /** Runs `body` as Lua code of this state: limits that watch memory apply, and host work is charged to it. */
  protected asRunning<T>(body: () => T): T {
    this.running++;
    active.push(this);
    try {
      return body();
    } finally {
      active.pop();
      this.running--;
    }
  }

  /** The hook interval a new state starts with: a state of a spent tree stops at its first instruction. */
  protected firstHookInterval(): number {
    return chargeState(this.limits) ? 1 : HOOK_INTERVAL;
  }

  /** One hook call (every HOOK_INTERVAL instructions): the deadline now and then, the interval's charge. */
  protected tick(L: L): void {
    const hooks = ++this.hooks;
    this.onHook(L, hooks);
    if (hooks % DEADLINE_CHECK_HOOKS === 0 && checkDeadline(this.limits)) this.failFast(L);
    this.charge(L, HOOK_INTERVAL);
  }

  /** the engine's own look at each hook call, before the core's (`hooks`: calls so far) */
  protected onHook(_L: L, _hooks: number): void {}

  /**
   * Counts `n` instructions against the run tree's budget: the hook's steps, and work a library function does in
   * one call (unseen by the hook). Once a limit is hit the hook fires on every instruction, so a pcall that
   * swallowed the error cannot run on: the next instruction outside it raises again.
   */
  protected charge(L: L, n: number): void {
    this.used += n;
    if (chargeInstructions(this.limits, n)) this.failFast(L);
  }

  /** instructions' time one table element takes a C loop or a host conversion of this engine */
  protected get elementCost(): number {
    return 8;
  }

  /**
   * Charges a host call's conversions (conversion.ts hostFunctionBody): `nodes` values at the cost of an element,
   * string bytes as library calls pay for them. The limit's message once spent, every later instruction raising it.
   */
  chargeHostWork(L: unknown, nodes: number, bytes: number): string | undefined {
    const n = nodes * this.elementCost + (bytes > CHARGE_FROM_BYTES ? Math.floor(bytes / BYTES_PER_INSTRUCTION) : 0);
    if (n <= 0 || !this.chargeQuietly(n)) return undefined;
    this.hookEveryInstruction(L as L);
    return limitMessage(this.limits, this.options);
  }

  /** Charges work seen where no error may be raised (an allocator, a string being built); true when spent. */
  chargeQuietly(n: number): boolean {
    this.used += n;
    return chargeInstructions(this.limits, n);
  }

  /** Raises the limit's error in thread `L`, after making every later instruction of the tree raise it again. */
  protected failFast(L: L): never {
    this.hookEveryInstruction(L);
    return this.api.raise(L, limitMessage(this.limits, this.options) as string);
  }

  protected memoryFull(L: L): never {
    this.limits.memoryExceeded = true;
    return this.failFast(L);
  }

  instructionsUsed(): number {
    return this.used;
  }
}
