/**
 * `aip.file.*` (docs/aipack.md section 7.4, protections of section 10): the namespace's registry. Each group of
 * functions lives in the module named for its job, over one shared FileAccess (file-access.ts):
 * file-ops.ts (one named file), file-list.ts (glob listings), file-formats.ts (JSON / TOML / YAML / Markdown),
 * file-data.ts (hashes, CSV, byte spans).
 */
import type { AipNamespaceFactory } from './types.ts';
import { fileAccess } from './file-access.ts';
import { fileData } from './file-data.ts';
import { fileFormats } from './file-formats.ts';
import { fileList } from './file-list.ts';
import { fileOps } from './file-ops.ts';

export const file: AipNamespaceFactory = (env) => {
  const access = fileAccess(env);
  return { ...fileData(access), ...fileOps(access), ...fileList(access), ...fileFormats(access) };
};
