/**
 * Glob listing over the Vfs, as `aip.file.list` does it (docs/aipack.md section 7.4): globset-style patterns (`*` stays
 * within a path segment, `**` spans segments, `{a,b}`, `?`, `[...]`, dot files matched), default folder
 * excludes lifted by explicit globs, files sorted by the glob that listed them (end-weighted) then by path.
 */
import nodePath from 'node:path';
import { LuaError, luaTypeName } from '../../engine/values.ts';
import type { Vfs } from '../../support/vfs.ts';
import type { StageEnv } from '../types.ts';
import { collapse, packRefDir } from './paths.ts';
import { compileGlob, GlobError } from './glob-match.ts';

const posix = nodePath.posix;

/** Folders skipped unless an include glob names them ("<folder>/" in the glob text). */
const SPECIAL_FOLDERS: readonly string[] = ['.aipack', '.git', 'target', 'node_modules', '.build', '__pycache__'];

/** `**\/.DS_Store`, `.DS_Store`, `**\/Thumbs.db`, `**\/*.swp`: excluded whatever the globs say. */
const isAlwaysExcludedName = (name: string): boolean => name === '.DS_Store' || name === 'Thumbs.db' || name.endsWith('.swp');

// Guards against symlink loops and runaway walks (the Vfs has no inode identity to detect cycles).
const MAX_DEPTH = 64;
const MAX_DIRS = 50_000;

const GLOB_META = /[*?[\]{}]/;

const matcherCache = new Map<string, (p: string) => boolean>();

/**
 * A globset-like matcher for one pattern (glob-match.ts: linear time). A pattern it refuses is a Lua error
 * naming the glob.
 */
export function globMatcher(pattern: string): (p: string) => boolean {
  let m = matcherCache.get(pattern);
  if (!m) {
    try {
      m = compileGlob(pattern);
    } catch (e) {
      if (e instanceof GlobError) throw new LuaError(`Invalid glob '${pattern.length > 80 ? pattern.slice(0, 80) + '...' : pattern}': ${e.message}`);
      throw e;
    }
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(pattern, m);
  }
  return m;
}

/** Splits globs into includes and `!` excludes (the "!" removed). */
function splitExcludes(globs: readonly string[]): { includes: string[]; excludes: string[] } {
  const includes: string[] = [];
  const excludes: string[] = [];
  for (const g of globs) {
    const t = g.trim();
    if (t.startsWith('!')) excludes.push(t.slice(1));
    else includes.push(g);
  }
  return { includes, excludes };
}

/** Globs argument: a string or a list of strings. */
export function globsArg(v: unknown, fnName: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((g) => typeof g === 'string')) return v as string[];
  throw new LuaError(`${fnName}: expected 'globs' to be a string or a list of strings, got ${luaTypeName(v)}`);
}

/** The special folders still excluded once the include globs have lifted theirs. */
function excludedFolders(globs: readonly string[]): Set<string> {
  const out = new Set(SPECIAL_FOLDERS);
  for (const g of globs) for (const f of SPECIAL_FOLDERS) if (g.trim().includes(f + '/')) out.delete(f);
  return out;
}

/** AIPack refuses globs going up from the base dir (cheap check on the start only, as AIPack). */
function validateGlobs(globs: readonly string[]): void {
  for (const raw of globs) {
    const g = raw.trim();
    if (g.startsWith('../') || g.startsWith('./..')) {
      throw new LuaError(`Glob '${g}' starting with '../'.\nStarting glob with '../' is not supported at the moment.`);
    }
  }
}

/**
 * Path references inside a glob (AIPack `process_path_reference`): `~/` -> home, a pack ref up to the last "/"
 * before the first wildcard -> its dir (left as is when it does not resolve), `$tmp` -> session tmp.
 */
export function expandGlob(env: StageEnv, glob: string): string {
  let g = glob.startsWith('~/') ? env.dirs.home + glob.slice(1) : glob;
  if (g.includes('@')) {
    const wild = g.search(/[*?[]/);
    let ref = g;
    if (wild >= 0) {
      const sep = g.slice(0, wild).lastIndexOf('/');
      if (sep >= 0) ref = g.slice(0, sep + 1);
    }
    const dir = packRefDir(env, ref);
    // not a resolvable pack ref: an ordinary glob
    if (dir === undefined) return g;
    const rest = g.slice(ref.length).replace(/^\/+/, '');
    return rest ? `${dir}/${rest}` : dir;
  }
  if (g === '$tmp' || g.startsWith('$tmp/')) g = env.dirs.tmp + g.slice(4);
  return g;
}

export interface ListOptions {
  /** absolute dir relative globs start from */
  baseDir: string;
  /** paths in results absolute (else relative to baseDir; absolute anyway when outside it) */
  absolute?: boolean;
  /** apply the special-folder and always-excluded rules (default true; `aip.file.first` does not) */
  defaultExcludes?: boolean;
  /** check for globs starting with "../" (default true) */
  validate?: boolean;
}

export interface ListedFile {
  abs: string;
  /** relative to baseDir, or absolute (see ListOptions.absolute) */
  path: string;
}

/** Files matching any glob, sorted by (last matching glob index, path). */
export function listFiles(vfs: Vfs, allGlobs: readonly string[], opts: ListOptions): ListedFile[] {
  const { includes: globs, excludes } = splitExcludes(allGlobs);
  if (opts.validate ?? true) validateGlobs(globs);
  const useExcludes = opts.defaultExcludes ?? true;
  const excluded = useExcludes ? excludedFolders(globs) : new Set<string>();
  const base = collapse(opts.baseDir);
  // `!` globs: relative ones are matched against the path relative to the base dir, absolute ones against the
  // absolute path (AIPack applies them with or without `absolute`)
  const excludeMatchers = excludes.filter((g) => g !== '').map((g) => ({ abs: g.startsWith('/'), match: globMatcher(g.replace(/^\.\//, '')) }));
  const isExcluded = (abs: string): boolean => {
    if (excludeMatchers.length === 0) return false;
    const rel = posix.relative(base, abs);
    return excludeMatchers.some((m) => (m.abs ? m.match(abs) : !rel.startsWith('..') && m.match(rel)));
  };
  // a root outside what the simulation may read must fail loudly, not list nothing: listDir raises there
  const touch = (dir: string): void => {
    vfs.listDir(dir);
  };
  const globIndex = new Map<string, number>();
  let dirsVisited = 0;

  globs.forEach((rawGlob, index) => {
    const glob = rawGlob.trim();
    if (glob === '') return;
    const absolute = glob.startsWith('/');
    const segs = glob.split('/').filter((s, i) => s !== '' && !(s === '.' && i === 0) && !(absolute && i === 0));
    const firstMeta = segs.findIndex((s) => GLOB_META.test(s));

    if (firstMeta < 0) {
      // a literal path: listed when it is a file
      const abs = collapse(posix.join(absolute ? '/' : base, ...segs));
      const name = posix.basename(abs);
      if (!vfs.isFile(abs)) touch(posix.dirname(abs));
      else if (!(useExcludes && isAlwaysExcludedName(name)) && !isExcluded(abs)) globIndex.set(abs, index);
      return;
    }

    const root = collapse(posix.join(absolute ? '/' : base, ...segs.slice(0, firstMeta)));
    const patternSegs = segs.slice(firstMeta);
    const pattern = patternSegs.join('/');
    const match = globMatcher(pattern);
    const maxDepth = pattern.includes('**') ? MAX_DEPTH : patternSegs.length;

    const visit = (dir: string, rel: string, depth: number): void => {
      if (++dirsVisited > MAX_DIRS) {
        throw new LuaError(`Glob '${glob}': more than ${MAX_DIRS} directories under '${root}' (symlink loop?); narrow the glob`);
      }
      for (const entry of vfs.listDir(dir)) {
        const abs = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
        const r = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (entry.isDir) {
          // excluded folders are never walked (they can be huge: node_modules, target)
          if (excluded.has(entry.name)) continue;
          if (depth + 1 < maxDepth) visit(abs, r, depth + 1);
        } else if (!(useExcludes && isAlwaysExcludedName(entry.name)) && match(r) && vfs.isFile(abs) && !isExcluded(abs)) {
          globIndex.set(abs, index);
        }
      }
    };
    if (vfs.isDir(root)) visit(root, '', 0);
    else touch(root);
  });

  const out: (ListedFile & { index: number })[] = [];
  for (const [abs, index] of globIndex) {
    let path = abs;
    if (!opts.absolute) {
      const rel = posix.relative(base, abs);
      if (rel !== '' && !rel.startsWith('..')) path = rel;
    }
    out.push({ abs, path, index });
  }
  out.sort((a, b) => a.index - b.index || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out.map(({ abs, path }) => ({ abs, path }));
}

export interface SortByGlobsOptions {
  /** rank by the last matching glob instead of the first */
  endWeighted?: boolean;
  /** where items matching no glob go (they keep their original order) */
  noMatchPosition?: 'start' | 'end';
}

/** simple_fs `sort_by_globs`: by (matching glob index, path); items matching no glob last (or first), by path too. */
export function sortByGlobs<T>(items: readonly T[], pathOf: (item: T) => string, globs: readonly string[], opts: SortByGlobsOptions = {}): T[] {
  const matchers = globs.map(globMatcher);
  const matched: { idx: number; path: string; item: T }[] = [];
  const unmatched: { idx: number; path: string; item: T }[] = [];
  const byIdxPath = (a: { idx: number; path: string }, b: { idx: number; path: string }) =>
    a.idx - b.idx || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  for (const item of items) {
    const path = pathOf(item);
    // "./x" is matched as "x", as simple_fs does
    const input = path.startsWith('./') ? path.slice(2) : path;
    let idx = -1;
    for (let i = 0; i < matchers.length; i++) {
      if (matchers[i](input)) {
        idx = i;
        if (!opts.endWeighted) break;
      }
    }
    (idx < 0 ? unmatched : matched).push({ idx, path, item });
  }
  matched.sort(byIdxPath);
  unmatched.sort(byIdxPath);
  const sorted = matched.map((m) => m.item);
  const rest = unmatched.map((m) => m.item);
  return opts.noMatchPosition === 'start' ? [...rest, ...sorted] : [...sorted, ...rest];
}
