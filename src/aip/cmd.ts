/**
 * `aip.cmd.exec(cmd_name, args?, options?)`: answered from the scripted `[[command]]` entries (scripted-io.ts).
 * Nothing ever runs on the host; a command line no entry matches is an error naming it.
 */
import { LuaError, optionsArg } from '../engine/values.ts';
import { withArgChecks } from './arg-checks.ts';
import type { AipNamespaceFactory } from './types.ts';
import { compareVersions } from './catalog.ts';
import { resolvePath } from './support/paths.ts';

const FN = 'aip.cmd.exec';

/**
 * AIPack's `into_vec_of_strings` (aipack src/script/support/common.rs): a string or a table whose sequence holds
 * strings (numbers read as strings, as mlua converts them); its errors are mlua conversion errors.
 */
function argsOf(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (typeof v === 'object') {
    const list = Array.isArray(v) ? v : [];
    if (list.every((a) => typeof a === 'string' || typeof a === 'number')) return list.map((a) => String(a));
    throw new LuaError('error converting Lua table to Vec<String> (command args - Table contains non-string values)');
  }
  throw new LuaError('error converting Lua unknown to Vec<String> (command args - Expected a string or a list of strings)');
}

export const cmd: AipNamespaceFactory = (env) =>
  withArgChecks('cmd', {
    exec(cmdName: string, args?: unknown, options?: unknown): Record<string, unknown> {
      const list = argsOf(args);
      // the `cwd` option exists since 0.8.33; it must resolve like any other path (sandbox rules included)
      const o = optionsArg(options, FN);
      let cwd: string | undefined;
      if (compareVersions(env.aipackVersion, '0.8.33') >= 0 && typeof o.cwd === 'string' && o.cwd.trim() !== '') {
        cwd = resolvePath(env, o.cwd);
      }
      const line = [cmdName, ...list].join(' ');
      // AIPack's wording when a command cannot run: "Fail to execute: <cmd> <args>[\nWorking directory: <dir>]\nCause:\n..."
      const failed = (cause: string) =>
        new LuaError(`Fail to execute: ${cmdName} ${list.join(' ')}${cwd ? `\nWorking directory: ${cwd}` : ''}\nCause:\n${cause}`);
      if (cwd && !env.vfs.isDir(cwd)) throw failed('No such file or directory (os error 2)');
      const answer = env.scripted?.commands.answer(line);
      env.trace.record({ kind: 'note', depth: env.depth, agent: env.agent.name, topic: 'cmd', data: { line, cwd, exit: answer?.exit } });
      if (!answer) {
        throw failed(`no scripted command for ${line}\n(add a [[command]] entry whose 'match' regex matches this command line; aip.cmd.exec never runs anything on the host)`);
      }
      return { stdout: answer.stdout, stderr: answer.stderr, exit: answer.exit };
    },
  });
