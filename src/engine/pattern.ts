/**
 * Lua's pattern matcher (lstrlib's backtracking `match`), here in TypeScript so that it counts its steps: the
 * engines' own matchers run a whole string.find in one library call, unseen by the instruction hook, and a pattern
 * like `.-.-.-.-.-b` over 5000 bytes backtracks for hours (docs/sandbox.md).
 *
 * The sandbox (sandbox.lua) routes here only the calls whose worst case is large (see `worstCaseSteps`); the others
 * stay on the engine's own matcher. Results must be identical to the engine's, so this follows the dialect of each:
 * '5.4' is C Lua 5.4 (wasmoon), '5.3' is fengari 0.1.5's JavaScript port of Lua 5.3, quirks included (its message
 * for `%b` lacks the closing parenthesis, a back-reference to a position capture moves the subject position by its
 * "length" -2, and max_expand takes an end at position 0 for no match). test/engine/pattern.test.ts compares both
 * with the engines' matchers on random patterns.
 *
 * Positions are 0-based offsets into the subject bytes; `null` is "no match", as in fengari.
 */
import { isdigit, matchClass } from './pattern-classes.ts';

export type PatternDialect = '5.3' | '5.4';

/**
 * Pattern calls whose worst case (as sandbox.lua estimates it) is above this many steps run here. The engines' own
 * matchers do about 10^8-10^9 steps a second, so what stays there ends within about 0.1 s, uncharged but for its size.
 */
export const PATTERN_ROUTE_STEPS = 10_000_000;

/** An error the engine raises as a Lua error with exactly this message (the engines' own matchers' texts). */
export class LuaPatternError extends Error {}

/** Called with the number of steps done since the last call; charges them to the run tree (may throw). */
export type StepTick = (steps: number) => void;

/**
 * A capture as the engines push it: `[init, len]` for a substring of the subject (`len >= 0`), or
 * `[POSITION, pos]` for a position capture (`pos` 1-based, pushed as an integer).
 */
export const POSITION = -1;

const CAP_UNFINISHED = -1;
const CAP_POSITION = -2;
const MAXCCALLS = 200;
const MAXCAPTURES = 32;
/** Steps between two charges: small enough that a runaway pattern is stopped within milliseconds of its budget. */
const STEP_CHUNK = 4096;

const L_ESC = 37; // '%'

class MatchState {
  level = 0;
  matchdepth = MAXCCALLS;
  steps = 0;
  readonly capInit: number[] = new Array<number>(MAXCAPTURES).fill(0);
  readonly capLen: number[] = new Array<number>(MAXCAPTURES).fill(0);
  srcEnd = 0;
  pEnd = 0;
  private v54 = true;
  src: Uint8Array = new Uint8Array(0);
  p: Uint8Array = new Uint8Array(0);
  private tick: StepTick = () => undefined;

  /** Prepares the state for one library call (one state serves every call: matching never re-enters Lua). */
  prepare(dialect: PatternDialect, src: Uint8Array, p: Uint8Array, tick: StepTick): this {
    this.v54 = dialect === '5.4';
    this.src = src;
    this.p = p;
    this.srcEnd = src.length;
    this.pEnd = p.length;
    this.tick = tick;
    this.level = 0;
    this.matchdepth = MAXCCALLS;
    this.steps = 0;
    return this;
  }

  step(): void {
    if (++this.steps >= STEP_CHUNK) this.flush();
  }

  flush(): void {
    const n = this.steps;
    this.steps = 0;
    if (n > 0) this.tick(n);
  }

  reprep(): void {
    this.level = 0;
  }

  private checkCapture(l: number): number {
    l -= 49; // '1'
    if (l < 0 || l >= this.level || this.capLen[l] === CAP_UNFINISHED) throw new LuaPatternError(`invalid capture index %${l + 1}`);
    return l;
  }

  private captureToClose(): number {
    for (let level = this.level - 1; level >= 0; level--) if (this.capLen[level] === CAP_UNFINISHED) return level;
    throw new LuaPatternError('invalid pattern capture');
  }

  private classEnd(p: number): number {
    const P = this.p;
    switch (P[p++]) {
      case L_ESC:
        if (p === this.pEnd) throw new LuaPatternError("malformed pattern (ends with '%')");
        return p + 1;
      case 91: // '['
        if (P[p] === 94) p++;
        do {
          if (p === this.pEnd) throw new LuaPatternError("malformed pattern (missing ']')");
          if (P[p++] === L_ESC && p < this.pEnd) p++;
        } while (P[p] !== 93);
        return p + 1;
      default:
        return p;
    }
  }

  private matchBracketClass(c: number, p: number, ec: number): boolean {
    const P = this.p;
    let sig = true;
    if (P[p + 1] === 94) {
      sig = false;
      p++;
    }
    while (++p < ec) {
      if (P[p] === L_ESC) {
        p++;
        if (matchClass(c, P[p] as number)) return sig;
      } else if (P[p + 1] === 45 && p + 2 < ec) {
        p += 2;
        if ((P[p - 2] as number) <= c && c <= (P[p] as number)) return sig;
      } else if (P[p] === c) return sig;
    }
    return !sig;
  }

  private singleMatch(s: number, p: number, ep: number): boolean {
    if (s >= this.srcEnd) return false;
    const c = this.src[s] as number;
    switch (this.p[p]) {
      case 46: return true; // '.'
      case L_ESC: return matchClass(c, this.p[p + 1] as number);
      case 91: return this.matchBracketClass(c, p, ep - 1);
      default: return this.p[p] === c;
    }
  }

  private matchBalance(s: number, p: number): number | null {
    if (p >= this.pEnd - 1) {
      throw new LuaPatternError(this.v54 ? "malformed pattern (missing arguments to '%b')" : "malformed pattern (missing arguments to '%b'");
    }
    const S = this.src;
    // C reads the terminating '\0' at the end of the subject; fengari reads undefined
    const first = s < this.srcEnd ? S[s] : this.v54 ? 0 : undefined;
    if (first !== this.p[p]) return null;
    const b = this.p[p];
    const e = this.p[p + 1];
    let cont = 1;
    while (++s < this.srcEnd) {
      this.step();
      if (S[s] === e) {
        if (--cont === 0) return s + 1;
      } else if (S[s] === b) cont++;
    }
    return null;
  }

  private maxExpand(s: number, p: number, ep: number): number | null {
    let i = 0;
    while (this.singleMatch(s + i, p, ep)) {
      this.step();
      i++;
    }
    while (i >= 0) {
      const res = this.match(s + i, ep + 1);
      if (this.v54 ? res !== null : res) return res;
      i--;
    }
    return null;
  }

  private minExpand(s: number, p: number, ep: number): number | null {
    for (;;) {
      const res = this.match(s, ep + 1);
      if (res !== null) return res;
      if (this.singleMatch(s, p, ep)) s++;
      else return null;
    }
  }

  private startCapture(s: number, p: number, what: number): number | null {
    const level = this.level;
    if (level >= MAXCAPTURES) throw new LuaPatternError('too many captures');
    this.capInit[level] = s;
    this.capLen[level] = what;
    this.level = level + 1;
    const res = this.match(s, p);
    if (res === null) this.level--;
    return res;
  }

  private endCapture(s: number, p: number): number | null {
    const l = this.captureToClose();
    this.capLen[l] = s - (this.capInit[l] as number);
    const res = this.match(s, p);
    if (res === null) this.capLen[l] = CAP_UNFINISHED;
    return res;
  }

  private matchCapture(s: number, l: number): number | null {
    l = this.checkCapture(l);
    const len = this.capLen[l] as number;
    const init = this.capInit[l] as number;
    // C compares as size_t, so a position capture (len -2) never matches; fengari compares signed
    if (this.v54 ? len < 0 || this.srcEnd - s < len : this.srcEnd - s < len) return null;
    const S = this.src;
    if (len > 0) for (let i = 0; i < len; i++) if (S[init + i] !== S[s + i]) return null;
    return s + len;
  }

  match(s: number | null, p: number): number | null {
    if (this.matchdepth-- === 0) throw new LuaPatternError('pattern too complex');
    const P = this.p;
    for (;;) {
      this.step();
      if (s === null || p === this.pEnd) break;
      let dflt = false;
      switch (P[p]) {
        case 40: // '('
          s = P[p + 1] === 41 ? this.startCapture(s, p + 2, CAP_POSITION) : this.startCapture(s, p + 1, CAP_UNFINISHED);
          break;
        case 41: // ')'
          s = this.endCapture(s, p + 1);
          break;
        case 36: // '$'
          if (p + 1 !== this.pEnd) {
            dflt = true;
            break;
          }
          s = s === this.srcEnd ? s : null;
          break;
        case L_ESC:
          switch (P[p + 1]) {
            case 98: // 'b'
              s = this.matchBalance(s, p + 2);
              if (s !== null) {
                p += 4;
                continue;
              }
              break;
            case 102: {
              // 'f'
              p += 2;
              if (P[p] !== 91) throw new LuaPatternError("missing '[' after '%f' in pattern");
              const ep = this.classEnd(p);
              const previous = s === 0 ? 0 : (this.src[s - 1] as number);
              const current = s === this.srcEnd ? 0 : (this.src[s] as number);
              if (!this.matchBracketClass(previous, p, ep - 1) && this.matchBracketClass(current, p, ep - 1)) {
                p = ep;
                continue;
              }
              s = null;
              break;
            }
            case 48: case 49: case 50: case 51: case 52:
            case 53: case 54: case 55: case 56: case 57:
              s = this.matchCapture(s, P[p + 1] as number);
              if (s !== null) {
                p += 2;
                continue;
              }
              break;
            default:
              dflt = true;
          }
          break;
        default:
          dflt = true;
      }
      if (!dflt || s === null) break;
      // a single-char class with an optional suffix
      const ep = this.classEnd(p);
      const suffix = P[ep];
      if (!this.singleMatch(s, p, ep)) {
        if (suffix === 42 || suffix === 63 || suffix === 45) {
          p = ep + 1;
          continue;
        }
        s = null;
        break;
      }
      if (suffix === 63) {
        // '?'
        const res = this.match(s + 1, ep + 1);
        if (res !== null) {
          s = res;
          break;
        }
        p = ep + 1;
        continue;
      }
      if (suffix === 43) {
        s = this.maxExpand(s + 1, p, ep);
        break;
      }
      if (suffix === 42) {
        s = this.maxExpand(s, p, ep);
        break;
      }
      if (suffix === 45) {
        s = this.minExpand(s, p, ep);
        break;
      }
      s++;
      p = ep;
    }
    this.matchdepth++;
    return s;
  }

  /** One capture as [init, len] or [POSITION, pos]; `i` past the captures is the whole match (i = 0 only). */
  oneCapture(i: number, s: number, e: number, out: number[]): void {
    if (i >= this.level) {
      if (i !== 0) throw new LuaPatternError(`invalid capture index %${i + 1}`);
      out.push(s, e - s);
      return;
    }
    const l = this.capLen[i] as number;
    if (l === CAP_UNFINISHED) throw new LuaPatternError('unfinished capture');
    if (l === CAP_POSITION) out.push(POSITION, (this.capInit[i] as number) + 1);
    else out.push(this.capInit[i] as number, l);
  }

  /** The captures of the last match (the whole match when it has none and `s` is given), appended to `out`. */
  captures(s: number | null, e: number, out: number[]): number[] {
    const n = this.level === 0 && s !== null ? 1 : this.level;
    for (let i = 0; i < n; i++) this.oneCapture(i, s as number, e, out);
    return out;
  }
}

const shared = new MatchState();

/**
 * string.find (`find`) or string.match from `init0` (0-based, already within 0..#s): for find
 * `[start1, end1, ...captures]`, for match the captures (or the whole match); null when nothing matches.
 */
export function patternFind(dialect: PatternDialect, s: Uint8Array, pattern: Uint8Array, init0: number, find: boolean, tick: StepTick): number[] | null {
  const anchor = pattern[0] === 94;
  const ms = shared.prepare(dialect, s, anchor ? pattern.subarray(1) : pattern, tick);
  let s1 = init0;
  do {
    ms.reprep();
    ms.step();
    const res = ms.match(s1, 0);
    if (res !== null) return done(ms, find ? ms.captures(null, 0, [s1 + 1, res]) : ms.captures(s1, res, []));
  } while (s1++ < ms.srcEnd && !anchor);
  return done(ms, null);
}

/**
 * The first match at or after `src` (0-based) whose end differs from `lastmatch` (gmatch and gsub skip an empty
 * match where the previous one ended); with `anchor`, only at `src`. Returns `[start, end, ...captures]` with the
 * whole match as the capture when there is none, or null. With `anchor` (gsub on a pattern starting with '^') the
 * '^' is dropped and only `src` is tried; gmatch passes false and its pattern is used as given. `firstOnly`: only the
 * first capture (gsub with a table looks up only that one, and never sees a later unfinished capture).
 */
export function patternScan(
  dialect: PatternDialect,
  s: Uint8Array,
  pattern: Uint8Array,
  src: number,
  lastmatch: number | null,
  anchor: boolean,
  tick: StepTick,
  firstOnly = false,
): number[] | null {
  const ms = shared.prepare(dialect, s, anchor ? pattern.subarray(1) : pattern, tick);
  for (; src <= ms.srcEnd; src++) {
    ms.reprep();
    ms.step();
    const e = ms.match(src, 0);
    if (e !== null && e !== lastmatch) {
      const found = [src, e];
      if (firstOnly) ms.oneCapture(0, src, e, found);
      else ms.captures(src, e, found);
      return done(ms, found);
    }
    if (anchor) break;
  }
  return done(ms, null);
}

/** Charges the steps left over (only on the way out: a charge may raise, and must not while an error unwinds). */
function done<T>(ms: MatchState, result: T): T {
  ms.flush();
  return result;
}

const decimal = (n: number) => new TextEncoder().encode(String(n));

/**
 * string.gsub with a string replacement, whole: the new subject and the number of matches. `maxBytes` caps the
 * result (the engine raises its memory error when `onTooLarge` is called).
 */
export function patternGsub(
  dialect: PatternDialect,
  s: Uint8Array,
  pattern: Uint8Array,
  repl: Uint8Array,
  maxN: number,
  tick: StepTick,
  maxBytes: number,
  onTooLarge: () => never,
): { result: Uint8Array; n: number } {
  const anchor = pattern[0] === 94;
  const ms = shared.prepare(dialect, s, anchor ? pattern.subarray(1) : pattern, tick);
  const parts: Uint8Array[] = [];
  let size = 0;
  const add = (bytes: Uint8Array) => {
    if (bytes.length === 0) return;
    size += bytes.length;
    if (size > maxBytes) onTooLarge();
    parts.push(bytes);
  };
  let src = 0;
  let lastmatch: number | null = null;
  let n = 0;
  let copyFrom = 0;
  while (n < maxN) {
    ms.reprep();
    ms.step();
    const e = ms.match(src, 0);
    if (e !== null && e !== lastmatch) {
      n++;
      add(s.subarray(copyFrom, src));
      addReplacement(ms, repl, src, e, add);
      src = lastmatch = copyFrom = e;
    } else if (src < ms.srcEnd) src++;
    else break;
    if (anchor) break;
  }
  add(s.subarray(copyFrom, ms.srcEnd));
  ms.flush();
  const result = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    result.set(part, at);
    at += part.length;
  }
  return { result, n };
}

function addReplacement(ms: MatchState, repl: Uint8Array, s: number, e: number, add: (b: Uint8Array) => void): void {
  let from = 0;
  const l = repl.length;
  for (let i = 0; i < l; i++) {
    if (repl[i] !== L_ESC) continue;
    add(repl.subarray(from, i));
    i++;
    const c = i < l ? (repl[i] as number) : -1;
    if (c === L_ESC) add(repl.subarray(i, i + 1));
    else if (c === 48) add(ms.src.subarray(s, e));
    else if (isdigit(c)) {
      const cap: number[] = [];
      ms.oneCapture(c - 49, s, e, cap);
      add(cap[0] === POSITION ? decimal(cap[1] as number) : ms.src.subarray(cap[0], (cap[0] as number) + (cap[1] as number)));
    } else throw new LuaPatternError("invalid use of '%' in replacement string");
    from = i + 1;
  }
  add(repl.subarray(from, l));
}

/** Plain search (string.find with `plain` or no special characters): the 0-based index of `p` from `init0`, or -1. */
export function plainFind(s: Uint8Array, p: Uint8Array, init0: number): number {
  return Buffer.from(s.buffer, s.byteOffset, s.length).indexOf(Buffer.from(p.buffer, p.byteOffset, p.length), init0);
}
