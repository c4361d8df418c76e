/**
 * The functions a pooled lua54 state keeps of the chunks it loaded, for its later stages.
 *
 * lua54 loads a chunk compiled before by undumping its bytecode (chunk-cache.ts): in WebAssembly that costs ~0.1 ms
 * for one of the pack's modules, and a contract case requires some twenty of them, in a state given back after each
 * stage. A state keeps the function each load made (in its registry, which no script reaches) and hands it to the
 * next stage that loads the same chunk, as a load would: its `_ENV` set to the globals again, its bytes charged to
 * the run tree as the undump's allocations were, and the instructions the undump was charged charged again.
 *
 * Nothing tells it from a new load:
 * - a kept function is handed out once per stage, so two loads of one chunk in a stage still give two functions;
 * - a stage sees no function of an earlier stage: the put-back (state-put-back.ts) leaves no value of one stage
 *   reachable to the next, so a kept function's `_ENV` upvalue, the only state a main chunk holds, is shared with
 *   nothing a script can reach; it is let go when the stage ends (a stage's scope would stay alive through it)
 *   and set to the globals before it runs;
 * - a load that would meet the run tree's memory cap is a real load, which meets it.
 */
import type { RunLimits } from './limits.ts';

/** functions a state keeps at most; the least taken goes first (the newest of those) */
export const KEPT_CHUNKS = 128;
/** bytes of kept functions a state holds at most (the modules and agent a contract case loads fit in it) */
export const KEPT_BYTES = 4 * 1024 * 1024;

/** What keeping costs the state and what a load of the chunk was charged. */
interface Kept {
  ref: number;
  bytes: number;
  instructions: number;
  /** stages that took it: the pack's modules, taken by every case, stay; an agent run once goes */
  takes: number;
}

/** The Lua side, given by the engine: the registry refs and the upvalue set. */
export interface KeptChunkLua {
  /** stores the value on top of L's stack (left there) in the registry; its ref */
  ref(L: number): number;
  unref(L: number, ref: number): void;
  /** pushes the kept function of `ref`, its first upvalue (`_ENV`) set to the globals */
  pushWithGlobals(L: number, ref: number): void;
  /** sets the first upvalue (`_ENV`) of the kept function of `ref` to nil */
  release(L: number, ref: number): void;
  /** charges `n` instructions to the state's run tree, as the undump's allocations were */
  charge(L: number, n: number): void;
}

export class KeptChunks<K extends object> {
  private readonly kept = new Map<K, Kept>();
  private keptBytes = 0;
  /** the kept functions this stage took or made: its own, charged to its run tree */
  private readonly taken = new Set<K>();
  private takenBytes = 0;
  /**
   * false while the state is set up: the sandbox's, the put-back's and a template's chunks make the closures the
   * state keeps for good (the libraries' wrappers share their `_ENV`), so they are loaded as they are, never kept
   */
  private open = false;

  constructor(private readonly lua: KeptChunkLua) {}

  /** bytes of kept functions no stage is charged for now (the state's bytes less these are the stage's) */
  get idleBytes(): number {
    return this.keptBytes - this.takenBytes;
  }

  /** bytes of all kept functions */
  get bytes(): number {
    return this.keptBytes;
  }

  /**
   * The stage ends: the functions it took let go of their `_ENV`, which a stage sets to its own scope (its input,
   * its locals' tables), so that what the stage made is garbage once it closed.
   */
  endStage(L: number): void {
    for (const key of this.taken) {
      const k = this.kept.get(key);
      if (k) this.lua.release(L, k.ref);
    }
  }

  /** A new stage takes the state (the first, once it is set up): nothing kept is taken yet. */
  newStage(): void {
    this.open = true;
    this.taken.clear();
    this.takenBytes = 0;
  }

  /**
   * Pushes the function kept for `key` and returns true, when there is one this stage has not taken and its bytes
   * fit in `limits`; else false (nothing pushed).
   */
  take(L: number, key: K, limits: RunLimits, capped: boolean): boolean {
    const k = this.open ? this.kept.get(key) : undefined;
    if (!k || this.taken.has(key)) return false;
    if (capped && limits.memoryUsed + k.bytes > limits.memoryMax) return false;
    this.lua.pushWithGlobals(L, k.ref);
    limits.memoryUsed += k.bytes;
    if (k.instructions > 0) this.lua.charge(L, k.instructions);
    this.taken.add(key);
    this.takenBytes += k.bytes;
    k.takes++;
    return true;
  }

  /**
   * Keeps the function on top of L's stack (left there) as what a load of `key` gives, which made `bytes` and was
   * charged `instructions`; the stage that loaded it took it.
   */
  keep(L: number, key: K, bytes: number, instructions: number): void {
    if (!this.open || this.kept.has(key) || bytes > KEPT_BYTES / 8) return;
    // the least taken make room, the newest of them first: agents run in turn, more than fit, would otherwise each
    // push out the one run next, and none would ever be taken
    while (this.kept.size >= KEPT_CHUNKS || this.keptBytes + bytes > KEPT_BYTES) {
      let drop: K | undefined;
      let fewest = Infinity;
      for (const [old, k] of this.kept) {
        if (k.takes <= fewest && !this.taken.has(old)) {
          drop = old;
          fewest = k.takes;
        }
      }
      if (drop === undefined) return; // all this stage's own
      const k = this.kept.get(drop) as Kept;
      this.lua.unref(L, k.ref);
      this.kept.delete(drop);
      this.keptBytes -= k.bytes;
    }
    const ref = this.lua.ref(L);
    this.kept.set(key, { ref, bytes, instructions, takes: 0 });
    this.keptBytes += bytes;
    this.taken.add(key);
    this.takenBytes += bytes;
  }
}
