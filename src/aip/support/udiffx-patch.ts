/**
 * The FILE_PATCH engine behind `aip.udiffx.apply_file_changes`: numberless `@@` hunks are located in the file and
 * applied one by one, as AIPack's udiffx crate (0.2.x, read from its source and its spec of the patch strategy)
 * does. Written here from those facts, not translated.
 *
 * Rules kept from the crate (each one is visible in its tests or spec):
 * - hunks: a line starting with `@@` opens one; trailing blank lines of a hunk are dropped; a hunk without any
 *   `+`, `-` or `~` line is ignored; `*** Begin Patch` / `*** End Patch` / `*** Update File:` wrapper lines are
 *   dropped when the raw hunks cannot be used.
 * - hunk lines: `+` adds; any other line is context or removal (`-`) whose first character is the prefix.
 * - location: three tiers tried in order (strict = equal lines; resilient = trimmed, spaces collapsed, heading
 *   markers, long suffixes, a trailing `;`/`,`, comment bodies; fuzzy = also case, backticks, quotes, trailing
 *   punctuation, `_` in numbers, all whitespace). Within the first tier that finds candidates, the one with the
 *   most exact lines wins, then a uniform re-indent, then the earliest. Lenient tiers look at the first 5000 lines.
 * - blank context lines that are not in the file become added blank lines; blank file lines the patch skipped are
 *   kept; context running past the end of the file is dropped when enough lines matched; `~` between removal lines
 *   removes the whole range; a patch on an empty file adds every line; an all-`+` hunk appends, reusing the file's
 *   trailing blank lines.
 * - application: hunks in order on the current content, each one all or nothing; a failed hunk is recorded with
 *   its body and cause and the next one still runs. CRLF becomes LF, and a missing last newline is added.
 */

export type MatchTier = 'Strict' | 'Resilient' | 'Fuzzy';
const TIERS: readonly MatchTier[] = ['Strict', 'Resilient', 'Fuzzy'];
const tierRank = (t: MatchTier): number => TIERS.indexOf(t);

const SUFFIX_MIN = 10;
const LENIENT_WINDOW = 5000;
const TILDE_MIN = 2;

export interface HunkError {
  hunk_body: string;
  cause: string;
}

export interface PatchResult {
  newContent: string;
  maxTier?: MatchTier;
  hunkErrors: HunkError[];
  totalHunks: number;
}

/** A failure to locate or complete one hunk; its message is the per-hunk cause. */
export class HunkFailure extends Error {}

const completionError = (cause: string) => new HunkFailure(`patch completion error: ${cause}`);

// ------------------------------------------------------------------------------------------------ lines

/** Rust `str::lines`: split on \n, drop one \r before it, no last empty piece. */
export function rustLines(s: string): string[] {
  if (s === '') return [];
  const parts = s.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

const body = (hunkLine: string): string => (hunkLine.length > 1 ? hunkLine.slice(1) : '');
const isBlank = (s: string): boolean => s.trim() === '';
const isTilde = (s: string): boolean => s.trim() === '~';

// ------------------------------------------------------------------------------------------------ matching

const collapseWs = (s: string): string => s.split(/\s+/).filter((w) => w !== '').join(' ');

function commentBody(trimmed: string): string | undefined {
  if (trimmed.startsWith('//')) return trimmed.slice(2).trim();
  if (trimmed.startsWith('#') && !trimmed.startsWith('#!') && !trimmed.startsWith('##')) return trimmed.slice(1).trim();
  if (trimmed.startsWith('<!--')) {
    const rest = trimmed.slice(4).trim();
    return (rest.endsWith('-->') ? rest.slice(0, -3) : rest).trim();
  }
  return undefined;
}

const isCommentPrefix = (p: string): boolean =>
  p.startsWith('//') || p.startsWith('<!--') || (p.startsWith('#') && !p.startsWith('#!') && !p.startsWith('##'));

/** One line ends with the other (both long enough), unless what is left in front is a comment marker. */
function suffixMatch(a: string, b: string, lower: boolean): boolean {
  const x = lower ? collapseWs(a).toLowerCase() : collapseWs(a);
  const y = lower ? collapseWs(b).toLowerCase() : collapseWs(b);
  const endsWith = (long: string, short: string): boolean => {
    if (short.length < SUFFIX_MIN || !long.endsWith(short)) return false;
    const front = long.slice(0, long.length - short.length).trim();
    return front === '' || !isCommentPrefix(front);
  };
  return endsWith(x, y) || endsWith(y, x);
}

const stripHeading = (s: string): string => s.replace(/^#+/, '').trimStart();
const stripEndPunct = (s: string): string => s.replace(/[!-/:-@[-`{-~]+$/, '');
const stripNumUnderscores = (s: string): string => s.replace(/(?<=[0-9a-fA-F])_(?=[0-9a-fA-F])/g, '');
const stripAllWs = (s: string): string => s.replace(/\s+/g, '');
const inlineFuzzy = (s: string): string => s.replace(/`/g, '').replace(/"/g, "'");

function resilientMatch(o: string, p: string): boolean {
  if (o === p || collapseWs(o) === collapseWs(p)) return true;
  if (o.startsWith('#') && p.startsWith('#') && collapseWs(stripHeading(o)) === collapseWs(stripHeading(p))) return true;
  if (suffixMatch(o, p, false)) return true;
  const oc = o.replace(/[,;]+$/, '');
  const pc = p.replace(/[,;]+$/, '');
  if (oc !== '' && pc !== '' && (oc !== o || pc !== p) && (oc === pc || collapseWs(oc) === collapseWs(pc))) return true;
  const ob = commentBody(o);
  const pb = commentBody(p);
  return ob !== undefined && pb !== undefined && ob !== '' && pb !== '' && collapseWs(ob) === collapseWs(pb);
}

function fuzzyMatch(o: string, p: string): boolean {
  const ol = o.toLowerCase();
  const pl = p.toLowerCase();
  if (ol === pl || collapseWs(ol) === collapseWs(pl)) return true;
  if (o.startsWith('#') && p.startsWith('#') && collapseWs(stripHeading(o)).toLowerCase() === collapseWs(stripHeading(p)).toLowerCase()) return true;
  if (suffixMatch(o, p, true)) return true;
  const ot = ol.replace(/`/g, '');
  const pt = pl.replace(/`/g, '');
  if (ot === pt || collapseWs(ot) === collapseWs(pt)) return true;
  const oi = inlineFuzzy(ol);
  const pi = inlineFuzzy(pl);
  if (oi.trim() !== '' && pi.trim() !== '' && (oi === pi || collapseWs(oi) === collapseWs(pi))) return true;
  if (stripEndPunct(ol) === stripEndPunct(pl)) return true;
  const op = stripEndPunct(oi);
  const pp = stripEndPunct(pi);
  if (op.trim() !== '' && pp.trim() !== '' && op === pp) return true;
  if (collapseWs(stripNumUnderscores(ol)) === collapseWs(stripNumUnderscores(pl))) return true;
  const ow = stripAllWs(ol);
  return ol !== '' && ow === stripAllWs(pl) && ow.length >= 4;
}

export function lineMatches(orig: string, patch: string, tier: MatchTier): boolean {
  if (tier === 'Strict') return orig === patch;
  const o = orig.trim();
  const p = patch.trim();
  if (o === '' || p === '') return o === p;
  return tier === 'Resilient' ? resilientMatch(o, p) : fuzzyMatch(o, p);
}

// ------------------------------------------------------------------------------------------------ hunks

const isWrapperLine = (t: string): boolean => t === '*** Begin Patch' || t === '*** End Patch' || t.startsWith('*** Update File:');

/** The actionable hunks of a patch text (LF only), each as its lines without the `@@` header. */
function collectHunks(lines: readonly string[], dropWrappers: boolean): string[][] {
  const hunks: string[][] = [];
  let current: string[] | undefined;
  const close = () => {
    if (!current) return;
    while (current.length > 0 && isBlank(current[current.length - 1])) current.pop();
    if (current.some((l) => l.startsWith('+') || l.startsWith('-') || isTilde(l))) hunks.push(current);
    current = undefined;
  };
  for (const line of lines) {
    const t = line.trim();
    if (dropWrappers && isWrapperLine(t)) continue;
    if (t.startsWith('@@')) {
      close();
      current = [];
    } else if (current) {
      current.push(line);
    }
  }
  close();
  return hunks;
}

/** The hunks a FILE_PATCH body holds (wrapper lines dropped only when the raw text has no usable hunk). */
export function splitHunks(patch: string): string[][] {
  const lines = rustLines(patch.replace(/\r\n/g, '\n'));
  const raw = collectHunks(lines, false);
  return raw.length > 0 ? raw : collectHunks(lines, true);
}

interface TildeRange {
  tilde: number;
  top: number[];
  bottom: number[];
}

function tildeRanges(hunk: readonly string[]): TildeRange[] {
  const ranges: TildeRange[] = [];
  hunk.forEach((line, at) => {
    if (!isTilde(line)) return;
    const top: number[] = [];
    for (let j = at - 1; j >= 0 && hunk[j].startsWith('-'); j--) top.unshift(j);
    const bottom: number[] = [];
    for (let k = at + 1; k < hunk.length && hunk[k].startsWith('-'); k++) bottom.push(k);
    for (const [side, found] of [['above', top.length], ['below', bottom.length]] as const) {
      if (found < TILDE_MIN) {
        throw completionError(`Tilde range-remove \`~\` at hunk line ${at + 1} requires at least ${TILDE_MIN} removal lines ${side}, found ${found}`);
      }
    }
    ranges.push({ tilde: at, top, bottom });
  });
  return ranges;
}

interface Candidate {
  start: number;
  tier: MatchTier;
  /** hunk line index -> file line index */
  matched: Map<number, number>;
  overhang: Set<number>;
  toAdd: Set<number>;
  skippedBlanks: number[];
  exact: number;
  uniformIndent: boolean;
}

const leadingWs = (s: string): number => s.length - s.replace(/^[ \t]+/, '').length;

function uniformIndent(orig: readonly string[], hunk: readonly string[], matched: Map<number, number>): boolean {
  let delta: number | undefined;
  for (const [h, o] of matched) {
    const p = body(hunk[h]);
    if (isBlank(p)) continue;
    const d = leadingWs(orig[o]) - leadingWs(p);
    if (delta === undefined) delta = d;
    else if (delta !== d) return false;
  }
  return true;
}

/** Where the hunk's context and removals fit, when they start at file line `start` (undefined: they do not). */
function tryAt(orig: readonly string[], hunk: readonly string[], start: number, tier: MatchTier, tildes: TildeRange[]): Candidate | undefined {
  const c: Candidate = { start, tier, matched: new Map(), overhang: new Set(), toAdd: new Set(), skippedBlanks: [], exact: 0, uniformIndent: false };
  let off = 0;
  const firstBottom = new Map(tildes.map((r) => [r.bottom[0], r] as const));
  for (let h = 0; h < hunk.length; h++) {
    const line = hunk[h];
    if (line.startsWith('+') || isTilde(line)) continue;
    const p = body(line);
    let at = start + off;
    if (tier !== 'Strict' && !isBlank(p)) {
      while (at < orig.length && isBlank(orig[at])) {
        c.skippedBlanks.push(at);
        at++;
        off++;
      }
    }
    if (isBlank(p)) {
      if (at < orig.length && isBlank(orig[at])) {
        c.matched.set(h, at);
        off++;
      } else {
        c.toAdd.add(h);
      }
      continue;
    }
    if (at >= orig.length) {
      if (line.startsWith('-')) return undefined;
      c.overhang.add(h);
      continue;
    }
    const range = firstBottom.get(h);
    if (range) {
      // the bottom anchors of a `~` range: the first place after the top anchors where all of them fit
      let found = -1;
      for (let s = at; s < orig.length && found < 0; s++) {
        if (range.bottom.every((bh, k) => s + k < orig.length && lineMatches(orig[s + k], body(hunk[bh]), tier))) found = s;
      }
      if (found < 0) return undefined;
      off += found - at;
      at = found;
    } else if (!lineMatches(orig[at], p, tier)) {
      return undefined;
    }
    if (orig[at] === p) c.exact++;
    c.matched.set(h, at);
    off++;
  }
  if (c.matched.size === 0) return undefined;
  let significant = 0;
  for (const h of c.matched.keys()) if (!isBlank(hunk[h])) significant++;
  if (significant === 0) return undefined;
  if (c.overhang.size > 0 && (significant < 2 || c.overhang.size >= significant)) return undefined;
  c.uniformIndent = uniformIndent(orig, hunk, c.matched);
  return c;
}

/** The new lines replacing file lines [start, start + oldCount). */
interface Splice {
  start: number;
  oldCount: number;
  lines: string[];
  tier?: MatchTier;
}

function bestCandidate(orig: readonly string[], hunk: readonly string[], tildes: TildeRange[]): Candidate | undefined {
  for (const tier of TIERS) {
    let best: Candidate | undefined;
    let bestScore: [number, number] = [-1, 0];
    for (let i = 0; i <= orig.length; i++) {
      if (tier !== 'Strict' && i > LENIENT_WINDOW) break;
      const c = tryAt(orig, hunk, i, tier, tildes);
      if (!c) continue;
      const score: [number, number] = [c.exact, (c.uniformIndent ? 1000 : 0) - i];
      if (score[0] > bestScore[0] || (score[0] === bestScore[0] && score[1] > bestScore[1])) {
        best = c;
        bestScore = score;
      }
    }
    if (best) return best;
  }
  return undefined;
}

/** Locates one hunk in the file lines: the splice it makes. Throws HunkFailure. */
function locate(orig: readonly string[], hunk: readonly string[]): Splice {
  const tildes = tildeRanges(hunk);
  if (orig.every(isBlank) && hunk.some((l) => !l.startsWith('+'))) {
    // nothing to anchor on: the whole hunk is new content
    return { start: 0, oldCount: 0, lines: hunk.map((l) => (l.startsWith('+') ? l.slice(1) : body(l))) };
  }
  if (hunk.every((l) => l.startsWith('+'))) return appendSplice(orig, hunk);
  const c = bestCandidate(orig, hunk, tildes);
  if (!c) throw completionError('Could not find patch context in original file (starting search from line 1)');

  const out: string[] = [];
  if (tildes.length > 0) {
    // removals and context are taken from the file in order from the start; each `~` removes up to the bottom anchors
    let at = c.start;
    for (let h = 0; h < hunk.length; h++) {
      const line = hunk[h];
      const range = tildes.find((r) => r.tilde === h);
      if (range) {
        const bottomAt = c.matched.get(range.bottom[0]);
        if (bottomAt === undefined) throw completionError('Tilde range-remove: could not find original index for first bottom anchor line');
        at = Math.max(at, bottomAt);
      } else if (line.startsWith('+')) {
        out.push(line.slice(1));
      } else if (at < orig.length) {
        if (!line.startsWith('-')) out.push(orig[at]);
        at++;
      }
    }
    return { start: c.start, oldCount: at - c.start, lines: out, tier: c.tier };
  }
  let last = -1;
  let end = c.start;
  for (let h = 0; h < hunk.length; h++) {
    const line = hunk[h];
    if (c.overhang.has(h)) continue;
    if (c.toAdd.has(h)) {
      out.push('');
      continue;
    }
    const o = c.matched.get(h);
    if (o !== undefined) {
      for (const s of c.skippedBlanks) if (s < o && s > last) out.push(orig[s]);
      if (!line.startsWith('-')) out.push(orig[o]);
      last = o;
      end = o + 1;
    } else if (line.startsWith('+')) {
      out.push(line.slice(1));
    }
  }
  return { start: c.start, oldCount: end - c.start, lines: out, tier: c.tier };
}

/** An all-`+` hunk: appended at the end, its leading/trailing blank lines reusing the file's trailing blanks. */
function appendSplice(orig: readonly string[], hunk: readonly string[]): Splice {
  let trailing = 0;
  for (let i = orig.length - 1; i >= 0 && isBlank(orig[i]); i--) trailing++;
  const blankAdd = (l: string) => isBlank(body(l));
  let lead = 0;
  while (lead < hunk.length && blankAdd(hunk[lead])) lead++;
  let tail = 0;
  while (tail < hunk.length && blankAdd(hunk[hunk.length - 1 - tail])) tail++;
  const overlap = Math.min(trailing, lead);
  const tailOverlap = Math.min(trailing - overlap, tail);
  const start = overlap > 0 ? orig.length - trailing : orig.length - tailOverlap;
  const lines: string[] = [];
  const contextAt: number[] = [];
  hunk.forEach((l, i) => {
    if (i < overlap || (tailOverlap > 0 && i >= hunk.length - tailOverlap)) {
      contextAt.push(lines.length);
      lines.push('');
    } else {
      lines.push(l.slice(1));
    }
  });
  // the reused lines are context: they must be the file's own (a whitespace-only line is not an empty one)
  let k = start;
  for (const at of contextAt) {
    if (orig[k] !== '') throw new HunkFailure('diffy apply error: error applying hunk #1');
    lines[at] = orig[k];
    k++;
  }
  return { start, oldCount: overlap + tailOverlap, lines };
}

/** Applies the hunks of one FILE_PATCH body to a file's content, each all or nothing. */
export function applyPatch(original: string, patch: string): PatchResult {
  let working = original.replace(/\r\n/g, '\n');
  if (working !== '' && !working.endsWith('\n')) working += '\n';
  const hunks = splitHunks(patch);
  const result: PatchResult = { newContent: working, hunkErrors: [], totalHunks: hunks.length };
  for (const hunk of hunks) {
    try {
      const lines = rustLines(working);
      const splice = locateWithWrapperRetry(lines, hunk);
      const next = [...lines.slice(0, splice.start), ...splice.lines, ...lines.slice(splice.start + splice.oldCount)];
      const text = next.length === 0 ? '' : next.join('\n') + '\n';
      if (text !== working) {
        working = text;
        if (splice.tier && (!result.maxTier || tierRank(splice.tier) > tierRank(result.maxTier))) result.maxTier = splice.tier;
      }
    } catch (e) {
      if (!(e instanceof HunkFailure)) throw e;
      result.hunkErrors.push({ hunk_body: ['@@', ...hunk].join('\n') + '\n', cause: e.message });
    }
  }
  result.newContent = working;
  return result;
}

/** A hunk that fails with wrapper lines in it is tried once more without them; the first cause is kept. */
function locateWithWrapperRetry(lines: readonly string[], hunk: string[]): Splice {
  try {
    return locate(lines, hunk);
  } catch (e) {
    if (!(e instanceof HunkFailure) || !hunk.some((l) => isWrapperLine(l.trim()))) throw e;
    const clean = collectHunks(['@@', ...hunk], true);
    if (clean.length !== 1) throw e;
    try {
      return locate(lines, clean[0]);
    } catch {
      throw e;
    }
  }
}
