/**
 * `aip.udiffx.*` (AIPack src/script/aip_modules/aip_udiffx.rs over the udiffx crate).
 *
 * - `load_files_context(globs, {base_dir?, absolute?})`: the listed files wrapped in `<FILE_CONTENT path="...">`
 *   blocks, nil when nothing matches.
 * - `apply_file_changes(content, base_dir?, {extrude?})`: applies the first `<FILE_CHANGES>` block of `content`
 *   (support/udiffx-changes.ts, support/udiffx-patch.ts) and returns the status table `{success, total_count,
 *   success_count, fail_count, items}`, plus the content without the block when `extrude = "content"`. Each item is
 *   `{file_path, kind, success, error_msg?, error_hunks?}`; a failed directive never stops the next one. Writes go
 *   through the simulator's Vfs like aip.file.save (so `--write` commits them, atomically, or nothing), with the
 *   crate's base-dir guard and, as sandbox rules, AIPack's workspace write/delete protections (the crate itself
 *   deletes anywhere; the simulator refuses, per item, a delete outside the workspace).
 *   Behaviour follows udiffx 0.2.x, the newest source that could be read; AIPack now pins 0.3.0, whose source was
 *   not available (its changelog mentions auto-closing an unclosed directive, which is not simulated: an unclosed
 *   tag is plain text here).
 * - `file_changes_instruction()`: an instruction for the same `<FILE_CHANGES>` format, written for the simulator.
 *   Its wording differs from AIPack's (which returns the crate's own prompt).
 */
import { posix } from 'node:path';
import { LuaError, luaTypeName, multi, optionsArg, type LuaMulti } from '../engine/values.ts';
import type { AipNamespaceFactory, StageEnv } from './types.ts';
import { compareVersions } from './catalog.ts';
import { expandGlob, globsArg, listFiles } from './support/globs.ts';
import { checkAccessDelete, checkAccessWrite, checkNotWorkspaceDir, collapse, displayForTrace, resolvePath } from './support/paths.ts';
import { pathArg, withArgChecks } from './arg-checks.ts';
import { extractFileChanges, type Directive } from './support/udiffx-changes.ts';
import { applyPatch, type HunkError } from './support/udiffx-patch.ts';
import { filesUnder } from '../support/vfs.ts';
import { FILE_CHANGES_INSTRUCTION } from './support/udiffx-instruction.ts';

interface DirectiveStatus {
  file_path: string;
  kind: string;
  success: boolean;
  error_msg?: string;
  error_hunks?: HunkError[];
}

export interface ApplyChangesStatus {
  success: boolean;
  total_count: number;
  success_count: number;
  fail_count: number;
  items: DirectiveStatus[];
}

/** A directive that did not apply: its message is the item's error_msg. */
class DirectiveFailure extends Error {}

const under = (abs: string, dir: string): boolean => abs.startsWith(dir);

/** Applies the directives against `baseDir` (absolute) through the Vfs. */
function applyDirectives(env: StageEnv, baseDir: string, directives: readonly Directive[], withErrorHunks: boolean): ApplyChangesStatus {
  const vfs = env.vfs;
  const trace = (op: 'write' | 'delete' | 'copy' | 'move', abs: string) =>
    env.trace.record({ kind: 'file', depth: env.depth, agent: env.agent.name, op, path: displayForTrace(env, abs) });
  const target = (p: string): string => collapse(posix.isAbsolute(p) ? p : posix.join(baseDir, p));
  // the crate's guard: under the base dir, or under AIPack's working dir (the workspace), by string prefix
  const guard = (abs: string): void => {
    if (!under(abs, baseDir) && !under(abs, env.dirs.workspace)) {
      throw new DirectiveFailure(`Security violation, target '${abs}' is outside base dir '${baseDir}'`);
    }
  };
  const sandbox = (check: () => void): void => {
    try {
      check();
    } catch (e) {
      throw new DirectiveFailure((e as Error).message);
    }
  };
  const write = (abs: string, content: string | Uint8Array): void => {
    sandbox(() => checkAccessWrite(env, abs));
    vfs.writeFile(abs, content);
    trace('write', abs);
  };
  const remove = (abs: string, p: string): void => {
    sandbox(() => checkAccessDelete(env, abs));
    sandbox(() => checkNotWorkspaceDir(env, abs, p, 'delete'));
    if (vfs.isDir(abs)) vfs.deleteDir(abs);
    else vfs.deleteFile(abs);
    trace('delete', abs);
  };

  const items: DirectiveStatus[] = [];
  for (const d of directives) {
    const item: DirectiveStatus =
      d.kind === 'Fail'
        ? { file_path: d.file_path ?? 'unknown', kind: 'Fail', success: false, error_msg: d.error_msg }
        : { file_path: 'file_path' in d ? d.file_path : d.to_path, kind: d.kind, success: false };
    try {
      switch (d.kind) {
        case 'Fail':
          break;
        case 'New': {
          const abs = target(d.file_path);
          guard(abs);
          if (vfs.isFile(abs) && vfs.readFile(abs) === d.content) throw new DirectiveFailure(`No changes applied to '${d.file_path}'`);
          write(abs, d.content);
          break;
        }
        case 'Patch': {
          const abs = target(d.file_path);
          guard(abs);
          const exists = vfs.isFile(abs);
          const original = exists ? (vfs.readFile(abs) ?? '') : '';
          const r = applyPatch(original, d.content);
          if (r.hunkErrors.length > 0 && withErrorHunks) item.error_hunks = r.hunkErrors;
          if (r.newContent === original && exists) throw new DirectiveFailure(`No changes applied to '${d.file_path}'`);
          write(abs, r.newContent);
          if (r.hunkErrors.length > 0) {
            throw new DirectiveFailure(`${r.hunkErrors.length} of ${r.totalHunks} hunks failed to apply for '${d.file_path}'`);
          }
          break;
        }
        case 'Append': {
          const abs = target(d.file_path);
          guard(abs);
          if (d.content === '') throw new DirectiveFailure(`No changes applied to '${d.file_path}'`);
          write(abs, vfs.isFile(abs) ? (vfs.readFile(abs) ?? '') + d.content : d.content);
          break;
        }
        case 'Copy':
        case 'Rename': {
          const from = target(d.from_path);
          const to = target(d.to_path);
          guard(from);
          guard(to);
          if (d.kind === 'Copy') {
            if (vfs.isDir(from)) throw new DirectiveFailure(`copy source is not a file: ${d.from_path}`);
            if (!vfs.isFile(from)) throw new DirectiveFailure(`Path not found for copy source: ${d.from_path}`);
            write(to, vfs.readBytes(from) ?? new Uint8Array());
          } else if (vfs.isFile(from)) {
            if (from !== to) {
              write(to, vfs.readBytes(from) ?? new Uint8Array());
              remove(from, d.from_path);
            }
          } else if (vfs.isDir(from)) {
            sandbox(() => checkNotWorkspaceDir(env, from, d.from_path, 'move'));
            for (const f of filesUnder(vfs, from)) write(posix.join(to, posix.relative(from, f)), vfs.readBytes(f) ?? new Uint8Array());
            remove(from, d.from_path);
          } else {
            throw new DirectiveFailure(`Path not found for rename source: ${d.from_path}`);
          }
          break;
        }
        case 'Delete': {
          const abs = target(d.file_path);
          if (!vfs.isFile(abs) && !vfs.isDir(abs)) throw new DirectiveFailure(`Path not found for delete: ${d.file_path}`);
          remove(abs, d.file_path);
          break;
        }
      }
      if (d.kind !== 'Fail') item.success = true;
    } catch (e) {
      if (!(e instanceof DirectiveFailure)) throw e;
      item.error_msg = e.message;
    }
    items.push(item);
  }
  const fail_count = items.filter((i) => !i.success).length;
  return { success: fail_count === 0, total_count: items.length, success_count: items.length - fail_count, fail_count, items };
}

export const udiffx: AipNamespaceFactory = (env) =>
  withArgChecks('udiffx', {
    load_files_context(globs: unknown, options?: unknown): string | undefined {
      const fn = 'aip.udiffx.load_files_context';
      const o = optionsArg(options, fn);
      const baseDir = o.base_dir === undefined || o.base_dir === null ? env.dirs.workspace : resolvePath(env, pathArg(o.base_dir, fn, 'base_dir'));
      const files = listFiles(env.vfs, globsArg(globs, fn).map((g) => expandGlob(env, g)), { baseDir, absolute: o.absolute === true });
      let out = '';
      for (const f of files) {
        const content = env.vfs.readFile(f.abs);
        if (content === undefined) throw new LuaError(`${fn} - Cannot read '${f.path}'`);
        if (out !== '') out += '\n';
        out += `<FILE_CONTENT path="${f.path}">\n${content}${content.endsWith('\n') ? '' : '\n'}</FILE_CONTENT>\n`;
      }
      return out === '' ? undefined : out;
    },

    apply_file_changes(content: string, baseDirArg?: unknown, options?: unknown): ApplyChangesStatus | LuaMulti {
      const fn = 'aip.udiffx.apply_file_changes';
      const o = options !== null && typeof options === 'object' ? optionsArg(options, fn) : {};
      const extrude = o.extrude;
      if (extrude !== undefined && extrude !== null && extrude !== 'content') {
        throw new LuaError("md_extract_blocks extrude must be = to 'content' for now");
      }
      const base = baseDirArg === undefined || baseDirArg === null ? '' : pathArg(baseDirArg, fn, 'base_dir');
      const baseDir = base === '' ? env.dirs.workspace : resolvePath(env, base);
      if (!under(baseDir, env.dirs.workspace)) {
        throw new LuaError(`${fn} - Security violation, target '${baseDir}' is outside base dir '${env.dirs.workspace}'`);
      }
      const { directives, rest } = extractFileChanges(content);
      // from AIPack's release tags: FILE_APPEND came with 0.8.19 (udiffx 0.1.21+), FILE_COPY with 0.8.20 (0.1.30+),
      // error_hunks in the Lua status with 0.8.21; an older udiffx does not see a newer tag at all
      const at = (v: string) => compareVersions(env.aipackVersion, v) >= 0;
      const seen = (tag: 'Append' | 'Copy') => (tag === 'Append' ? at('0.8.19') : at('0.8.20'));
      const known = directives.filter((d) => {
        if (d.kind === 'Append' || d.kind === 'Copy') return seen(d.kind);
        if (d.kind === 'Fail' && d.tag === 'FILE_APPEND') return seen('Append');
        if (d.kind === 'Fail' && d.tag === 'FILE_COPY') return seen('Copy');
        return true;
      });
      const status = applyDirectives(env, baseDir, known, at('0.8.21'));
      return extrude === 'content' ? multi(status, rest) : status;
    },

    file_changes_instruction(): string {
      return FILE_CHANGES_INSTRUCTION;
    },
  });
