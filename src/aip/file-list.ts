/**
 * `aip.file.*` over glob listings: list, list_load, first and stats (docs/aipack.md section 7.4). Which files
 * a glob set lists (excludes, order) is support/globs.ts; this module turns them into FileInfo / FileRecord / FileStats.
 */
import { optionsArg } from '../engine/values.ts';
import { readTooBig, type FileAccess } from './file-access.ts';
import { expandGlob, globsArg, listFiles, type ListedFile } from './support/globs.ts';
import { renderHome } from './support/paths.ts';

const N = (name: string) => `aip.file.${name}`;

export function fileList(access: FileAccess): Record<string, unknown> {
  const { env, infoOf } = access;
  const { vfs } = env;

  const listing = (fn: string, globsV: unknown, opts: unknown, extra: { defaultExcludes?: boolean; validate?: boolean } = {}): ListedFile[] => {
    const o = optionsArg(opts, fn);
    const baseDir = access.baseDirOf(o.base_dir, fn) ?? env.dirs.workspace;
    const globs = globsArg(globsV, fn).map((g) => expandGlob(env, g));
    return listFiles(vfs, globs, { baseDir, absolute: o.absolute === true, ...extra });
  };

  return {
    list(globs: unknown, options?: unknown): Record<string, unknown>[] {
      // `with_meta` is accepted and ignored: meta is always loaded (as AIPack since 0.8.4)
      return listing(N('list'), globs, options).map((f) => infoOf(renderHome(env, f.path), f.abs));
    },

    list_load(globs: unknown, options?: unknown): Record<string, unknown>[] {
      const fn = N('list_load');
      const files = listing(fn, globs, options);
      // each file is checked as it is read, all of them before any: they are held together until the list returns
      const limit = vfs.readLimit?.();
      if (limit !== undefined) {
        const total = files.reduce((sum, f) => sum + (vfs.stat(f.abs)?.size ?? 0), 0);
        if (total > limit) throw readTooBig(`${fn}: the ${files.length} file${files.length === 1 ? '' : 's'} listed`, total, limit);
      }
      return files.map((f) => access.recordOf(renderHome(env, f.path), f.abs, fn));
    },

    first(globs: unknown, options?: unknown): Record<string, unknown> | undefined {
      const f = listing(N('first'), globs, options, { defaultExcludes: false, validate: false })[0];
      return f && infoOf(renderHome(env, f.path), f.abs);
    },

    stats(globs: unknown, options?: unknown): Record<string, unknown> | undefined {
      if (globs === undefined || globs === null) return undefined;
      const stats = { _type: 'FileStats', total_size: 0, number_of_files: 0, ctime_first: 0, ctime_last: 0, mtime_first: 0, mtime_last: 0 };
      let first = true;
      for (const f of listing(N('stats'), globs, options)) {
        const st = vfs.stat(f.abs);
        if (!st) continue;
        const ctime = Math.round(st.ctimeMs * 1000);
        const mtime = Math.round(st.mtimeMs * 1000);
        stats.number_of_files += 1;
        stats.total_size += st.size;
        stats.ctime_first = first ? ctime : Math.min(stats.ctime_first, ctime);
        stats.ctime_last = first ? ctime : Math.max(stats.ctime_last, ctime);
        stats.mtime_first = first ? mtime : Math.min(stats.mtime_first, mtime);
        stats.mtime_last = first ? mtime : Math.max(stats.mtime_last, mtime);
        first = false;
      }
      return stats;
    },
  };
}
