/**
 * The host side of the sandbox's pattern routing (sandbox.lua), shared by both engines: each engine only says how to
 * read its strings and push results (`PatternIO`). The functions take and return 0-based positions, except
 * `pfind`/`pplain`, which mirror string.find's 1-based results.
 */
import { LuaPatternError, patternFind, patternGsub, patternScan, plainFind, POSITION, type PatternDialect } from './pattern.ts';

/** How an engine's host function reads its arguments and pushes its results (L is the engine's state pointer). */
export interface PatternIO<L> {
  bytes(L: L, idx: number): Uint8Array;
  integer(L: L, idx: number): number;
  isNil(L: L, idx: number): boolean;
  boolean(L: L, idx: number): boolean;
  pushInteger(L: L, n: number): void;
  pushNil(L: L): void;
  /** room for `n` more values on the stack (raises "too many captures" when there is none, as lstrlib does) */
  checkStack(L: L, n: number): void;
  /** pushes `len` bytes of the subject (argument 1) from `init` */
  pushSubject(L: L, init: number, len: number): void;
  pushBytes(L: L, bytes: Uint8Array): void;
  /** charges steps to the run tree's budget (raises once it is exhausted) */
  charge(L: L, steps: number): void;
  /** raises the run tree's memory error */
  tooLarge(L: L): never;
  memoryMax(): number;
  /** raises a Lua error with this message, positioned as the engine's own library errors are */
  raise(L: L, message: string): never;
}

export type PatternHost<L> = Record<'pfind' | 'pscan' | 'pgsub' | 'pplain', (L: L) => number>;

export function patternHost<L>(dialect: PatternDialect, io: PatternIO<L>): PatternHost<L> {
  const pushCaptures = (L: L, values: number[], from: number): number => {
    io.checkStack(L, (values.length - from) / 2 + 2);
    for (let i = from; i < values.length; i += 2) {
      const a = values[i] as number;
      const b = values[i + 1] as number;
      if (a === POSITION) io.pushInteger(L, b);
      else io.pushSubject(L, a, b);
    }
    return (values.length - from) / 2;
  };
  const guarded = (fn: (L: L) => number) => (L: L) => {
    let message: string;
    try {
      return fn(L);
    } catch (err) {
      if (!(err instanceof LuaPatternError)) throw err;
      message = err.message;
    }
    return io.raise(L, message);
  };
  return {
    // (s, p, init1, find) -> as string.find / string.match
    pfind: guarded((L) => {
      const find = io.boolean(L, 4);
      const r = patternFind(dialect, io.bytes(L, 1), io.bytes(L, 2), io.integer(L, 3) - 1, find, (n) => io.charge(L, n));
      if (r === null) {
        io.pushNil(L);
        return 1;
      }
      if (!find) return pushCaptures(L, r, 0);
      io.pushInteger(L, r[0] as number);
      io.pushInteger(L, r[1] as number);
      return 2 + pushCaptures(L, r, 2);
    }),
    // (s, p, src0, lastmatch0 | nil, anchor, firstOnly) -> start0, end0, captures... | nothing
    pscan: guarded((L) => {
      const last = io.isNil(L, 4) ? null : io.integer(L, 4);
      const tick = (n: number) => io.charge(L, n);
      const r = patternScan(dialect, io.bytes(L, 1), io.bytes(L, 2), io.integer(L, 3), last, io.boolean(L, 5), tick, io.boolean(L, 6));
      if (r === null) return 0;
      io.pushInteger(L, r[0] as number);
      io.pushInteger(L, r[1] as number);
      return 2 + pushCaptures(L, r, 2);
    }),
    // (s, p, repl, max) -> result, count
    pgsub: guarded((L) => {
      const { result, n } = patternGsub(
        dialect,
        io.bytes(L, 1),
        io.bytes(L, 2),
        io.bytes(L, 3),
        io.integer(L, 4),
        (steps) => io.charge(L, steps),
        io.memoryMax(),
        () => io.tooLarge(L),
      );
      io.pushBytes(L, result);
      io.pushInteger(L, n);
      return 2;
    }),
    // (s, p, init1) -> start1, end1 | nil
    pplain: (L) => {
      const p = io.bytes(L, 2);
      const at = plainFind(io.bytes(L, 1), p, io.integer(L, 3) - 1);
      if (at < 0) {
        io.pushNil(L);
        return 1;
      }
      io.pushInteger(L, at + 1);
      io.pushInteger(L, at + p.length);
      return 2;
    },
  };
}
