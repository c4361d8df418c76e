/**
 * `aip.file.*` (docs/aipack.md section 7.4, protections of section 10): the namespace's registry. Each group of
 * functions lives in the module named for its job, over one shared FileAccess (file-access.ts):
 * file-ops.ts (one named file), file-list.ts (glob listings), file-formats.ts (JSON / TOML / YAML / Markdown),
 * file-csv.ts (CSV files), file-bytes.ts (hashes and byte spans).
 */
import type { AipNamespaceFactory } from './types.ts';
import { fileAccess } from './file-access.ts';
import { fileBytes } from './file-bytes.ts';
import { fileCsv } from './file-csv.ts';
import { fileFormats } from './file-formats.ts';
import { fileList } from './file-list.ts';
import { fileOps } from './file-ops.ts';
import { withArgChecks } from './arg-checks.ts';

export const file: AipNamespaceFactory = (env) => {
  const access = fileAccess(env);
  // in groups: merging them into one object first cost as much as checking them
  return withArgChecks('file', [fileBytes(access), fileCsv(access), fileOps(access), fileList(access), fileFormats(access)]);
};
