/**
 * `aip.path.*` (docs/aipack.md section 7.3). Pure string functions follow Rust `Path` semantics; the others resolve
 * through support/paths.ts and look at the Vfs (never the disk directly).
 */
import { LuaError, luaTypeName, multi, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory, StageEnv } from './types.ts';
import { globMatcher, sortByGlobs, type SortByGlobsOptions } from './support/globs.ts';
import { fileInfoOf, resolvePath, rustFileName, rustParent } from './support/paths.ts';
import { withArgChecks } from './arg-checks.ts';

const N = (name: string) => `aip.path.${name}`;

/** `~/x` -> home/x (aip.path.diff expands the tilde on both sides). */
const expandTilde = (env: StageEnv, p: string): string => (p === '~' || p.startsWith('~/') ? env.dirs.home + p.slice(1) : p);

function split(p: string): LuaMulti {
  return multi(rustParent(p) ?? '', rustFileName(p) ?? '');
}

function parent(path: string): string | undefined {
  return rustParent(path);
}

/**
 * Parts are strings or string lists; a list is joined with "/", then all parts are concatenated WITHOUT a
 * separator and the result is joined to `base` (one "/" between), repeated slashes collapsed.
 */
function join(b: string, ...parts: unknown[]): string {
  let tail = '';
  parts.forEach((part, i) => {
    if (typeof part === 'string' || typeof part === 'number') tail += String(part);
    else if (Array.isArray(part) && part.every((x) => typeof x === 'string' || typeof x === 'number')) tail += part.map(String).join('/');
    else throw new LuaError(`${N('join')}: expected part ${i + 1} to be a string or a list of strings, got ${luaTypeName(part)}`);
  });
  let joined: string;
  if (parts.length === 0 || (b === '' && tail === '')) joined = b;
  else if (tail.startsWith('/') || b === '') joined = tail; // Rust: an absolute part replaces the base
  else joined = b.endsWith('/') ? b + tail : `${b}/${tail}`;
  return joined.replace(/\/{2,}/g, '/');
}

/** Rust `Path::components` as pathdiff sees them (root dropped: both sides have the same kind). */
function comps(p: string): string[] {
  const out: string[] = [];
  p.split('/').forEach((c, i) => {
    if (c === '' || (c === '.' && i !== 0)) return;
    out.push(c);
  });
  return out;
}

/** pathdiff `diff_paths`: undefined when not computable. */
function diffPaths(path: string, base: string): string | undefined {
  const pathAbs = path.startsWith('/');
  if (pathAbs !== base.startsWith('/')) return pathAbs ? path : undefined;
  const a = comps(path);
  const b = comps(base);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const ca = a[i];
    const cb = b[j];
    if (ca === undefined && cb === undefined) break;
    if (cb === undefined) {
      out.push(...a.slice(i));
      break;
    }
    if (ca === undefined) {
      out.push('..');
      j++;
      continue;
    }
    if (out.length === 0 && ca === cb) {
      i++;
      j++;
      continue;
    }
    if (cb === '.') {
      out.push(ca);
      i++;
      j++;
      continue;
    }
    if (cb === '..') return undefined;
    out.push('..', ...b.slice(j + 1).map(() => '..'), ...a.slice(i));
    break;
  }
  return out.join('/');
}

function matchesAny(path: string, globs: string[]): boolean {
  return globs.some((g) => g !== '' && globMatcher(g)(path));
}

function globsOf(v: unknown, fnName: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((g) => typeof g === 'string')) return v as string[];
  throw new LuaError(`${fnName}: expected 'globs' to be a string or a list of strings, got ${luaTypeName(v)}`);
}

function sortOptions(v: unknown): SortByGlobsOptions {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return {};
  if (typeof v === 'boolean') return { endWeighted: v };
  if (typeof v === 'string') {
    if (v !== 'start' && v !== 'end') throw new LuaError(`${N('sort_by_globs')} options string must be 'start' or 'end', got '${v}'`);
    return { noMatchPosition: v };
  }
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    return { endWeighted: o.end_weighted === true, noMatchPosition: o.no_match_position === 'start' ? 'start' : 'end' };
  }
  throw new LuaError(`${N('sort_by_globs')}: options must be a boolean, "start", "end" or a table, got ${luaTypeName(v)}`);
}

export const path: AipNamespaceFactory = (env) => {
  const resolve = (p: string): string => resolvePath(env, p);

  /** Resolves, or undefined when the path cannot be resolved (exists/is_file/is_dir answer false then). */
  const tryResolve = (p: string): string | undefined => {
    try {
      return resolvePath(env, p);
    } catch {
      return undefined;
    }
  };

  return withArgChecks('path', {
    split,
    parent,
    join,
    resolve,

    exists(p: string): boolean {
      const abs = tryResolve(p);
      return abs !== undefined && (env.vfs.isFile(abs) || env.vfs.isDir(abs));
    },

    is_file(p: string): boolean {
      const abs = tryResolve(p);
      return abs !== undefined && env.vfs.isFile(abs);
    },

    is_dir(p: string): boolean {
      const abs = tryResolve(p);
      return abs !== undefined && env.vfs.isDir(abs);
    },

    diff(filePath: string, basePath: string): string {
      const f = expandTilde(env, filePath);
      const b = expandTilde(env, basePath);
      return diffPaths(f, b) ?? '';
    },

    matches_glob(p: string | null | undefined, globs: unknown): boolean | undefined {
      if (p === undefined || p === null) return undefined;
      return matchesAny(p, globsOf(globs, N('matches_glob')));
    },

    parse(p: string | null | undefined): Record<string, unknown> | undefined {
      if (p === undefined || p === null) return undefined;
      return fileInfoOf(p);
    },

    sort_by_globs(files: unknown, globs: unknown, options?: unknown): unknown[] {
      const fn = N('sort_by_globs');
      if (!Array.isArray(files)) throw new LuaError(`${fn}: expected 'files' to be a list, got ${luaTypeName(files)}`);
      const pathOf = (item: unknown): string => {
        if (typeof item === 'string') return item;
        if (item && typeof item === 'object' && typeof (item as Record<string, unknown>).path === 'string') {
          return (item as Record<string, unknown>).path as string;
        }
        throw new LuaError(`${fn}: each file must be a string or a table with a string 'path', got ${luaTypeName(item)}`);
      };
      files.forEach(pathOf); // validate every item before sorting
      return sortByGlobs(files, pathOf, globsOf(globs, fn), sortOptions(options));
    },
  });
};
