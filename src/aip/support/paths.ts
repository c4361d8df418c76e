/**
 * Path resolution and write/delete protection shared by `aip.path` and `aip.file`
 * (docs/aipack.md section 7.3 intro, section 9 pack refs, section 10 protections), plus the FileInfo shape (7.4).
 */
import nodePath from 'node:path';
import { LuaError, luaTypeName } from '../../engine/values.ts';
import { readPackRef, type PackRef } from './pack-ref.ts';
import type { StageEnv } from '../types.ts';

const posix = nodePath.posix;

/** Lexical normalisation: `..` and `.` collapsed, duplicate and trailing slashes removed. */
export function collapse(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/** `ns@name/...`-looking paths (docs/aipack.md section 7.3): contain "@", do not start with ".", are not absolute. */
function isPackRefLike(p: string): boolean {
  return p.includes('@') && !p.startsWith('.') && !p.startsWith('/');
}

/** Relative in the AIPack sense: resolved against the workspace (or a base dir). */
export function isPlainRelative(p: string): boolean {
  return !(p === '~' || p.startsWith('~/') || p.startsWith('/') || p === '$tmp' || p.startsWith('$tmp/') || isPackRefLike(p));
}

/** Directory a pack ref points to (pack dir or `$base` / `$workspace` support dir), sub path included. */
export function resolvePackRef(env: Pick<StageEnv, 'dirs' | 'findPackDir'>, ref: string, original = ref): string {
  const parsed = readPackRef(ref);
  if (typeof parsed === 'string') throw new LuaError(`Cannot resolve path '${original}': ${parsed}`);
  const dir = packDirOf(env, parsed);
  if (dir === undefined) {
    throw new LuaError(
      `Cannot resolve path '${original}': pack '${parsed.namespace}@${parsed.name}' is not installed ` +
        `(looked in .aipack/pack/custom, ~/.aipack-base/pack/custom and ~/.aipack-base/pack/installed)`,
    );
  }
  return dir;
}

/** What resolvePackRef gives, or undefined where it would raise (a reference not well formed, a pack not installed). */
export function packRefDir(env: Pick<StageEnv, 'dirs' | 'findPackDir'>, ref: string): string | undefined {
  const parsed = readPackRef(ref);
  return typeof parsed === 'string' ? undefined : packDirOf(env, parsed);
}

function packDirOf(env: Pick<StageEnv, 'dirs' | 'findPackDir'>, { namespace, name, scope, subPath }: PackRef): string | undefined {
  let dir: string | undefined;
  if (scope === 'base') dir = posix.join(env.dirs.baseAipack, 'support', 'pack', namespace, name);
  else if (scope === 'workspace') dir = posix.join(env.dirs.workspaceAipack, 'support', 'pack', namespace, name);
  else dir = env.findPackDir(namespace, name);
  if (dir === undefined) return undefined;
  return subPath ? posix.join(dir, subPath) : dir;
}

/**
 * Absolute, collapsed path for an aip.path / aip.file argument:
 * `~/` home, absolute as is, `$tmp/` session tmp, pack refs, else relative to `baseDir` (default: workspace).
 * A relative `baseDir` is itself resolved first.
 */
export function resolvePath(env: Pick<StageEnv, 'dirs' | 'findPackDir'>, p: string, baseDir?: string): string {
  // `~/.aipack-base` is the base dir, which --aipack-base may put elsewhere than under the simulated home
  if (p === '~/.aipack-base' || p.startsWith('~/.aipack-base/')) return collapse(posix.join(env.dirs.baseAipack, p.slice('~/.aipack-base'.length)));
  if (p === '~' || p.startsWith('~/')) return collapse(posix.join(env.dirs.home, p.slice(1)));
  if (p.startsWith('/')) return collapse(p);
  if (p === '$tmp' || p.startsWith('$tmp/')) return collapse(posix.join(env.dirs.tmp, p.slice(4)));
  if (isPackRefLike(p)) return collapse(resolvePackRef(env, p));
  const base = baseDir === undefined ? env.dirs.workspace : resolvePath(env, baseDir);
  return collapse(posix.join(base, p));
}

/** Path relative to the workspace, as AIPack's `full_path.diff(wks_dir)` prints it. */
export function relToWorkspace(env: StageEnv, abs: string): string {
  return posix.relative(env.dirs.workspace, abs);
}

/** Workspace-relative when inside the workspace, else absolute (for the trace and messages). */
export function displayForTrace(env: StageEnv, abs: string): string {
  const rel = relToWorkspace(env, abs);
  return rel === '' || rel.startsWith('..') ? abs : rel;
}

const isBelow = (abs: string, root: string) => abs === root || abs.startsWith(root + '/');

/**
 * The base dir as AIPack sees it: any path naming ".aipack-base". The simulation's own base dir counts too, even
 * when --aipack-base names a dir called otherwise (AIPack's is always `~/.aipack-base`).
 */
const inAipackBase = (env: StageEnv, abs: string) => abs.includes('.aipack-base') || isBelow(abs, env.dirs.baseAipack);

/**
 * docs/aipack.md section 10 `check_access_write`: inside the workspace, or any path containing ".aipack-base". Base writes are
 * then kept in the run's memory (runtime/base-vfs.ts), never written to the base dir on disk.
 */
export function checkAccessWrite(env: StageEnv, abs: string): void {
  const rel = relToWorkspace(env, abs);
  if (!rel.startsWith('..')) return;
  if (isBelow(abs, env.dirs.baseAipack)) return;
  if (abs.includes('.aipack-base')) {
    // sandbox rule: AIPack lets any path naming ".aipack-base" through; the simulation only has its own base dir
    throw new LuaError(
      `Save file protection (simulator) - The path \`${abs}\` is outside the workspace and outside the simulated ` +
        `aipack base \`${env.dirs.baseAipack}\`; a simulated run does not save it`,
    );
  }
  // AIPack tests the string prefix, so a workspace entry named "..x" is refused too (kept: it only refuses more)
  throw new LuaError(
    `Save file protection - The path \`${rel}\` does not belong to the workspace dir \`${env.dirs.workspace}\` or to the .aipack-base.\n` +
      'Cannot save file out of workspace or aipack base at this point',
  );
}

/** docs/aipack.md section 10 `check_access_delete`: never under ".aipack-base", never outside the workspace. */
export function checkAccessDelete(env: StageEnv, abs: string): void {
  if (inAipackBase(env, abs)) {
    throw new LuaError('Delete file protection - Deleting files from the `.aipack-base` folder is not allowed');
  }
  const rel = relToWorkspace(env, abs);
  if (rel.startsWith('..')) {
    throw new LuaError(
      `Delete file protection - The path \`${rel}\` does not belong to the workspace dir \`${env.dirs.workspace}\`.\n` +
        'Cannot delete files outside the workspace',
    );
  }
}

/**
 * Sandbox rule (AIPack would trash or move the whole workspace): a simulated run never deletes or moves the
 * workspace dir itself. `p` is the path as the agent gave it.
 */
export function checkNotWorkspaceDir(env: StageEnv, abs: string, p: string, action: 'delete' | 'move'): void {
  if (abs !== env.dirs.workspace) return;
  const rule = action === 'delete' ? 'Delete file protection' : 'Rename protection';
  throw new LuaError(`${rule} (simulator) - '${p}' is the workspace dir; a simulated run does not ${action} it`);
}

// ------------------------------------------------------------------------------------------ Rust Path parts

/** Rust `Path::components` for a `/` path: leading "." kept, inner "." and empty parts dropped. */
function components(p: string): { absolute: boolean; parts: string[] } {
  const absolute = p.startsWith('/');
  const raw = p.split('/');
  const parts: string[] = [];
  raw.forEach((c, i) => {
    if (c === '') return;
    if (c === '.' && !(i === 0 && !absolute)) return;
    parts.push(c);
  });
  return { absolute, parts };
}

/** Rust `Path::parent`: undefined for "" and "/" (no parent), "" for a single relative component. */
export function rustParent(p: string): string | undefined {
  const { absolute, parts } = components(p);
  if (parts.length === 0) return absolute || p === '' ? undefined : '';
  const rest = parts.slice(0, -1);
  if (absolute) return '/' + rest.join('/');
  return rest.join('/');
}

/** Rust `Path::file_name`: the last component unless it is "." or "..". */
export function rustFileName(p: string): string | undefined {
  const { parts } = components(p);
  const last = parts[parts.length - 1];
  return last === undefined || last === '.' || last === '..' ? undefined : last;
}

/** Rust `file_stem` / `extension` of a file name (".bashrc" has no extension). */
function stemAndExt(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return { stem: name, ext: '' };
  return { stem: name.slice(0, dot), ext: name.slice(dot + 1) };
}

// --------------------------------------------------------------------------------------------- FileInfo

// Extensions treated as binary by is_likely_text (everything else is presumed text).
const BINARY_EXTS = new Set(
  (
    'png jpg jpeg gif bmp ico webp tif tiff psd heic avif pdf zip gz tgz bz2 xz zst 7z rar tar jar war class exe dll so ' +
    'dylib bin o a lib obj wasm mp3 mp4 m4a wav flac ogg avi mov mkv webm woff woff2 ttf otf eot sqlite db pyc doc docx ' +
    'xls xlsx ppt pptx odt ods dmg iso aipack'
  ).split(' '),
);

function isLikelyTextExt(ext: string): boolean {
  return !BINARY_EXTS.has(ext.toLowerCase());
}

/** `~/…` for absolute paths under the (simulated) home, as AIPack renders FileInfo paths. */
export function renderHome(env: StageEnv, p: string): string {
  const home = env.dirs.home;
  return p.startsWith('/') && p.startsWith(home + '/') ? '~/' + p.slice(home.length + 1) : p;
}

export interface FileMeta {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** FileInfo table for a display path (docs/aipack.md section 7.4); without meta the time/size fields are absent. */
export function fileInfoOf(path: string, meta?: FileMeta, isText?: boolean): Record<string, unknown> {
  const name = rustFileName(path) ?? '';
  const { stem, ext } = stemAndExt(name);
  const info: Record<string, unknown> = { _type: 'FileInfo', path, dir: rustParent(path) ?? '', name, stem, ext };
  if (meta) {
    // AIPack gives microseconds since epoch, as integers
    info.ctime = Math.round(meta.ctimeMs * 1000);
    info.mtime = Math.round(meta.mtimeMs * 1000);
    info.size = meta.size;
  }
  info.is_likely_text = isText ?? isLikelyTextExt(ext);
  return info;
}
