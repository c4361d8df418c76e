/**
 * `aip.file.*` on one named file: load, save, append, delete, copy, move, exists, info, ensure_exists,
 * ensure_dir and save_changes, with AIPack's protections (docs/aipack.md section 10) and texts.
 */
import { LuaError, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import { compareVersions } from './catalog.ts';
import type { FileAccess } from './file-access.ts';
import { rustTrimEnd, rustTrimStart } from './text.ts';
import { applyChanges, type ChangesInfo } from './support/change-blocks.ts';
import { checkAccessDelete, checkAccessWrite, checkNotWorkspaceDir, resolvePath } from './support/paths.ts';

const N = (name: string) => `aip.file.${name}`;

export function fileOps(access: FileAccess): Record<string, unknown> {
  const { env, guarded, infoOf, trace, writtenPath } = access;
  const { vfs } = env;

  const load = (p: string, options?: unknown): Record<string, unknown> => {
    const fn = N('load');
    const o = optionsArg(options, fn);
    const abs = resolvePath(env, p, access.baseDirOf(o.base_dir, fn));
    return access.recordOf(p, abs, fn);
  };

  const save = (p: string, content: string, options?: unknown): Record<string, unknown> => {
    const fn = N('save');
    let text = content;
    const o = optionsArg(options, fn);
    if (o.trim_start === true) text = rustTrimStart(text);
    if (o.trim_end === true) text = rustTrimEnd(text);
    if (o.single_trailing_newline === true) text = text.replace(/\n+$/, '') + '\n';
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    guarded(fn, p, () => vfs.writeFile(abs, text));
    trace('write', abs);
    return infoOf(writtenPath(p, abs), abs);
  };

  const append = (p: string, content: string): Record<string, unknown> => {
    const fn = N('append');
    const abs = resolvePath(env, p);
    access.appendText(fn, p, abs, content);
    return infoOf(writtenPath(p, abs), abs);
  };

  const del = (p: string): boolean => {
    const fn = N('delete');
    const abs = resolvePath(env, p);
    checkAccessDelete(env, abs);
    if (vfs.isDir(abs)) {
      // from 0.8.14 AIPack trashes the path with simple_fs::safer_trash_file, which takes a directory whole;
      // before, remove_file (and 0.8.11's own trash helper) refused directories
      if (compareVersions(env.aipackVersion, '0.8.14') < 0) throw new LuaError(`${fn} - Cannot delete '${p}': it is a directory, only files can be deleted`);
      checkNotWorkspaceDir(env, abs, p, 'delete');
      const removed = guarded(fn, p, () => vfs.deleteDir(abs));
      if (removed) trace('delete', abs);
      return removed;
    }
    if (!vfs.isFile(abs)) return false;
    const removed = guarded(fn, p, () => vfs.deleteFile(abs));
    if (removed) trace('delete', abs);
    return removed;
  };

  const transfer = (kind: 'copy' | 'move', s: string, d: string, options: unknown): Record<string, unknown> => {
    const fn = N(kind);
    const o = optionsArg(options, fn);
    const srcAbs = resolvePath(env, s);
    const destAbs = resolvePath(env, d);
    if (kind === 'move') checkAccessDelete(env, srcAbs);
    checkAccessWrite(env, destAbs);
    if (kind === 'move' && !vfs.isFile(srcAbs) && !vfs.isDir(srcAbs)) {
      throw new LuaError(`Move file failed - Source \`${s}\` does not exist`);
    }
    const Kind = kind === 'copy' ? 'Copy' : 'Move';
    if (o.overwrite !== true && (vfs.isFile(destAbs) || vfs.isDir(destAbs))) {
      throw new LuaError(
        `${Kind} file failed - Destination \`${d}\` already exists and overwrite is set to false.\n` +
          `Use \`aip.file.${kind}(src_path, dst_path,{overwrite = true}\` to allow overwrite.`,
      );
    }
    if (!vfs.isFile(srcAbs)) {
      const why = vfs.isDir(srcAbs) ? 'it is a directory (only files are supported)' : 'file not found';
      throw new LuaError(`Fail to open source file \`${s}\` for ${kind}.\nCause: ${why}`);
    }
    if (srcAbs !== destAbs) {
      const bytes = vfs.readBytes(srcAbs) ?? new Uint8Array();
      guarded(fn, d, () => vfs.writeFile(destAbs, bytes));
      if (kind === 'move') guarded(fn, s, () => vfs.deleteFile(srcAbs));
    }
    trace(kind, destAbs);
    return infoOf(writtenPath(d, destAbs), destAbs);
  };

  const exists = (p: string): boolean => {
    try {
      const abs = resolvePath(env, p);
      return vfs.isFile(abs) || vfs.isDir(abs);
    } catch {
      return false;
    }
  };

  const info = (p: string | null | undefined): Record<string, unknown> | undefined => {
    if (p === undefined || p === null || p.trim() === '') return undefined;
    const abs = resolvePath(env, p);
    return vfs.isFile(abs) ? infoOf(p, abs) : undefined;
  };

  const ensure_exists = (p: string, content?: string | null, options?: unknown): Record<string, unknown> => {
    const fn = N('ensure_exists');
    const text = content ?? '';
    const o = optionsArg(options, fn);
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    if (!vfs.isFile(abs)) {
      if (vfs.isDir(abs)) throw new LuaError(`${fn} - Cannot ensure file '${p}': it is a directory`);
      guarded(fn, p, () => vfs.writeFile(abs, text));
      trace('write', abs);
    } else if (o.content_when_empty === true && (vfs.readFile(abs) ?? '').trim() === '') {
      guarded(fn, p, () => vfs.writeFile(abs, text));
      trace('write', abs);
    }
    return infoOf(p, abs);
  };

  const ensure_dir = (p: string): boolean => {
    const fn = N('ensure_dir');
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    if (vfs.isDir(abs)) return false;
    if (vfs.isFile(abs)) throw new LuaError(`${fn} - Cannot create dir '${p}': path already exists and is not a directory`);
    guarded(fn, p, () => vfs.mkdirp(abs));
    return true;
  };

  const save_changes = (p: string, text: string): LuaMulti => {
    const fn = N('save_changes');
    const abs = resolvePath(env, p);
    checkAccessWrite(env, abs);
    let result: { content: string; info: ChangesInfo };
    if (vfs.isFile(abs)) result = applyChanges(access.readText(p, abs, fn), text, p);
    else result = { content: text, info: { changed_count: 1 } };
    guarded(fn, p, () => vfs.writeFile(abs, result.content));
    trace('write', abs);
    return multi(infoOf(p, abs), result.info);
  };

  return {
    load,
    save,
    append,
    delete: del,
    copy: (src: string, dest: string, options?: unknown) => transfer('copy', src, dest, options),
    move: (src: string, dest: string, options?: unknown) => transfer('move', src, dest, options),
    exists,
    info,
    ensure_exists,
    ensure_dir,
    save_changes,
  };
}
