/**
 * Glob matching in linear time, with globset's rules as AIPack uses them (literal separator): `*` and `?` and
 * `[...]` never match "/", `**` as a whole path component spans components (`**\/x`, `x/**`, `a/**\/b`),
 * elsewhere it is a `*`; `{a,b}` alternation (may nest, may hold wildcards); `\` escapes; dot files are not
 * special. The pattern is compiled to an NFA and simulated with a state set, so a match costs
 * O(path length x pattern length) whatever the pattern: no backtracking, no regex.
 */

export class GlobError extends Error {}

/** Longest pattern accepted; longer ones are refused rather than slowly matched. */
const MAX_GLOB_LENGTH = 4096;

type Test = (c: string) => boolean;
interface Node {
  eps: number[];
  tests: { test: Test; to: number }[];
}

const notSlash: Test = (c) => c !== '/';
const anyChar: Test = () => true;

class Nfa {
  readonly nodes: Node[] = [];
  add(): number {
    this.nodes.push({ eps: [], tests: [] });
    return this.nodes.length - 1;
  }
}

/** Parser state over the pattern text. */
class Compiler {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly nfa: Nfa,
  ) {}

  /** Compiles a sequence until end, or until "," / "}" when inside braces; returns [start, end] nodes. */
  sequence(depth: number): [number, number] {
    const start = this.nfa.add();
    let cur = start;
    const link = (test: Test): void => {
      const next = this.nfa.add();
      this.nfa.nodes[cur].tests.push({ test, to: next });
      cur = next;
    };
    const src = this.src;
    while (this.i < src.length) {
      const c = src[this.i];
      if (depth > 0 && (c === ',' || c === '}')) break;
      if (c === '*') {
        let j = this.i;
        while (src[j] === '*') j++;
        const stars = j - this.i;
        const prevSep = this.i === 0 || src[this.i - 1] === '/' || (depth > 0 && (src[this.i - 1] === '{' || src[this.i - 1] === ','));
        const nextSep = j === src.length || src[j] === '/' || (depth > 0 && (src[j] === ',' || src[j] === '}'));
        if (stars >= 2 && prevSep && nextSep) {
          this.i = j;
          if (src[j] === '/') {
            // "**/" = (?:.*/)? : nothing, or anything that ends with "/"
            this.i++;
            const after = this.nfa.add();
            const run = this.nfa.add();
            this.nfa.nodes[cur].eps.push(after, run);
            this.nfa.nodes[run].tests.push({ test: anyChar, to: run }, { test: (ch) => ch === '/', to: after });
            cur = after;
          } else {
            // trailing "**" (or whole pattern): anything, "/" included
            const node = this.nfa.add();
            this.nfa.nodes[cur].eps.push(node);
            this.nfa.nodes[node].tests.push({ test: anyChar, to: node });
            cur = node;
          }
          continue;
        }
        this.i = j;
        const node = this.nfa.add();
        this.nfa.nodes[cur].eps.push(node);
        this.nfa.nodes[node].tests.push({ test: notSlash, to: node });
        cur = node;
        continue;
      }
      if (c === '?') {
        this.i++;
        link(notSlash);
        continue;
      }
      if (c === '[') {
        const cls = this.charClass();
        if (cls) {
          link(cls);
          continue;
        }
      }
      if (c === '{') {
        if (depth >= 10) throw new GlobError('alternations nested too deeply');
        this.i++;
        const join = this.nfa.add();
        for (;;) {
          const [s, e] = this.sequence(depth + 1);
          this.nfa.nodes[cur].eps.push(s);
          this.nfa.nodes[e].eps.push(join);
          if (this.src[this.i] === ',') {
            this.i++;
            continue;
          }
          if (this.src[this.i] === '}') {
            this.i++;
            break;
          }
          throw new GlobError("unclosed alternation: '{' without '}'");
        }
        cur = join;
        continue;
      }
      if (c === '\\' && this.i + 1 < src.length) {
        const lit = src[this.i + 1];
        this.i += 2;
        link((ch) => ch === lit);
        continue;
      }
      this.i++;
      link((ch) => ch === c);
    }
    return [start, cur];
  }

  /** `[abc]`, `[a-z]`, `[!x]` / `[^x]`; never matches "/". undefined when "[" starts no class (a literal "["). */
  private charClass(): Test | undefined {
    const src = this.src;
    let j = this.i + 1;
    let negate = false;
    if (src[j] === '!' || src[j] === '^') {
      negate = true;
      j++;
    }
    const ranges: [string, string][] = [];
    let first = true;
    while (j < src.length && (src[j] !== ']' || first)) {
      let a = src[j];
      if (a === '\\' && j + 1 < src.length) a = src[++j];
      let b = a;
      if (src[j + 1] === '-' && j + 2 < src.length && src[j + 2] !== ']') {
        b = src[j + 2];
        j += 2;
      }
      ranges.push([a, b]);
      j++;
      first = false;
    }
    if (j >= src.length) return undefined;
    this.i = j + 1;
    return (ch) => ch !== '/' && ranges.some(([a, b]) => ch >= a && ch <= b) !== negate;
  }

  done(): boolean {
    return this.i >= this.src.length;
  }
}

/** A matcher for one glob; throws GlobError for patterns it refuses (too long, unbalanced braces). */
export function compileGlob(pattern: string): (path: string) => boolean {
  if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`pattern longer than ${MAX_GLOB_LENGTH} characters`);
  const nfa = new Nfa();
  const c = new Compiler(pattern, nfa);
  const [start, end] = c.sequence(0);
  if (!c.done()) throw new GlobError("unbalanced '}'");
  const { nodes } = nfa;
  const n = nodes.length;

  const closure = (set: Uint8Array, list: number[]): void => {
    for (let k = 0; k < list.length; k++) {
      for (const e of nodes[list[k]].eps) {
        if (!set[e]) {
          set[e] = 1;
          list.push(e);
        }
      }
    }
  };

  return (path: string): boolean => {
    let set = new Uint8Array(n);
    let list = [start];
    set[start] = 1;
    closure(set, list);
    for (const ch of path) {
      const nextSet = new Uint8Array(n);
      const nextList: number[] = [];
      for (const s of list) {
        for (const t of nodes[s].tests) {
          if (!nextSet[t.to] && t.test(ch)) {
            nextSet[t.to] = 1;
            nextList.push(t.to);
          }
        }
      }
      if (nextList.length === 0) return false;
      closure(nextSet, nextList);
      set = nextSet;
      list = nextList;
    }
    return set[end] === 1;
  };
}
