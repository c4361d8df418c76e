/**
 * `aip.udiffx.load_files_context(globs, {base_dir?, absolute?})`: the listed files wrapped in
 * `<FILE_CONTENT path="...">` blocks, nil when nothing matches. `apply_file_changes` and
 * `file_changes_instruction` come from AIPack's udiffx crate (its patch format and its prompt text) and are not
 * simulated: a sub-agent that calls them can stub them with `mocks`.
 */
import { LuaError, optionsArg } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { expandGlob, globsArg, listFiles } from './support/globs.ts';
import { pathArg, resolvePath } from './support/paths.ts';

export const udiffx: AipNamespaceFactory = (env) => ({
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
});
