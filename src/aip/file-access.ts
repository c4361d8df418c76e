/**
 * How every `aip.file.*` function reaches a file, for one stage: FileInfo / FileRecord tables, traced writes,
 * and Vfs failures turned into Lua errors naming the function and the path. Reads go through the Vfs (overlay
 * over disk); writes only through `env.vfs`, after the AIPack access checks.
 */
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { StageEnv } from './types.ts';
import { checkAccessWrite, displayForTrace, fileInfoOf, isPlainRelative, relToWorkspace, renderHome, resolvePath } from './support/paths.ts';
import { pathArg } from './arg-checks.ts';

export type FileOp = 'write' | 'append' | 'delete' | 'copy' | 'move';

export interface FileAccess {
  readonly env: StageEnv;
  /** Records one write-like operation in the run trace. */
  trace(op: FileOp, abs: string): void;
  /** Runs a Vfs operation; its plain errors become Lua errors naming the function and the path. */
  guarded<T>(fn: string, p: string, f: () => T): T;
  /** The `base_dir` option resolved, or undefined when absent. */
  baseDirOf(v: unknown, fn: string): string | undefined;
  /** FileInfo path after a write: workspace-relative for relative input, else absolute (`~/` under home). */
  writtenPath(input: string, abs: string): string;
  infoOf(displayPath: string, abs: string): Record<string, unknown>;
  /** FileRecord of a file that must exist (a directory or a missing file raises). */
  recordOf(displayPath: string, abs: string, fn: string): Record<string, unknown>;
  /** Text of a file that must exist. */
  readText(p: string, abs: string, fn: string): string;
  /** Bytes of a file that must exist; `fail(why)` words the error ("it is a directory", "file not found ..."). */
  bytesOf(abs: string, fail: (why: string) => string): Uint8Array;
  /** The file's bytes (none when missing) followed by `text`: what an append writes. */
  appended(abs: string, text: string): Uint8Array;
  /** `text` appended to a file the run holds in memory (true), in place; false (nothing done) for any other file. */
  appendHeld(abs: string, text: string): boolean;
  /** Write-checked, traced append with the function's error wording. */
  appendText(fn: string, p: string, abs: string, text: string): void;
}

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** A size as a reader takes it in: MiB (rounded up) from 1 MiB on, bytes below. */
const mib = (n: number) => (n >= 1048576 ? `${Math.ceil(n / 1048576)} MiB` : `${n} bytes`);

/** The error of a read refused by its size (`what` names the file or files), raised before anything is read. */
export function readTooBig(what: string, size: number, left: number): LuaError {
  return new LuaError(`memory limit exceeded: ${what}: ${mib(size)}, more than the run may still bring into memory (${mib(Math.max(left, 0))}); nothing was read`);
}

export function fileAccess(env: StageEnv): FileAccess {
  const { vfs } = env;

  const trace = (op: FileOp, abs: string): void => {
    env.trace.record({ kind: 'file', depth: env.depth, agent: env.agent.name, op, path: displayForTrace(env, abs) });
  };

  const guarded = <T>(fn: string, p: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof LuaError) throw e;
      throw new LuaError(`${fn} - Fail for '${p}'. Cause: ${(e as Error).message}`);
    }
  };

  const infoOf = (displayPath: string, abs: string): Record<string, unknown> => {
    const st = vfs.stat(abs);
    return fileInfoOf(displayPath, st && { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
  };

  const appendHeld = (abs: string, text: string): boolean => vfs.appendFile(abs, encoder.encode(text));

  const appended = (abs: string, text: string): Uint8Array => {
    const prev = vfs.isFile(abs) ? (vfs.readBytes(abs) ?? new Uint8Array()) : new Uint8Array();
    const add = encoder.encode(text);
    const next = new Uint8Array(prev.length + add.length);
    next.set(prev);
    next.set(add, prev.length);
    return next;
  };

  return {
    env,
    trace,
    guarded,
    infoOf,
    appended,
    appendHeld,

    baseDirOf: (v, fn) => (v === undefined || v === null ? undefined : resolvePath(env, pathArg(v, fn, 'base_dir'))),

    writtenPath(input, abs) {
      if (isPlainRelative(input)) {
        const rel = relToWorkspace(env, abs);
        if (rel !== '' && !rel.startsWith('..')) return rel;
      }
      return renderHome(env, abs);
    },

    recordOf(displayPath, abs, fn) {
      // read first: outside the allowed roots the read itself raises the protection error
      const bytes = vfs.readBytes(abs);
      if (bytes === undefined) {
        const why = vfs.isDir(abs) ? 'it is a directory' : 'file not found';
        throw new LuaError(`${fn} - Fail to read file '${displayPath}' (resolved to '${abs}'): ${why}`);
      }
      const info = infoOf(displayPath, abs);
      const probe = bytes.subarray(0, 8000);
      const text = (info.is_likely_text as boolean) && !probe.includes(0);
      return { ...info, _type: 'FileRecord', content: decoder.decode(bytes), is_likely_text: text };
    },

    readText(p, abs, fn) {
      const s = vfs.readFile(abs);
      if (s === undefined) throw new LuaError(`${fn} - Fail to read file '${p}' (resolved to '${abs}'): file not found`);
      return s;
    },

    bytesOf(abs, fail) {
      const bytes = vfs.readBytes(abs);
      if (bytes === undefined) throw new LuaError(fail(vfs.isDir(abs) ? 'it is a directory' : `file not found (resolved to '${abs}')`));
      return bytes;
    },

    appendText(fn, p, abs, text) {
      checkAccessWrite(env, abs);
      if (!guarded(fn, p, () => appendHeld(abs, text))) {
        const next = appended(abs, text);
        guarded(fn, p, () => vfs.writeFile(abs, next));
      }
      trace('append', abs);
    },
  };
}
