/**
 * Whether this repository's built pack (`pack/`, what the harness runs) matches its sources (`lua/` and the
 * contract). Only meaningful in a checkout that has the sources; elsewhere there is nothing to compare.
 */
import { exists, readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { PACK_DIR, renderPack, SOURCE_DIR } from '../pack/build.ts';
import { REPO_ROOT } from '../runtime/packs.ts';

/** Pack files that `build` would write differently (or that are missing), pack-relative; [] when fresh. */
export function stalePackFiles(root = REPO_ROOT): string[] {
  if (!exists(nodePath.join(root, SOURCE_DIR, 'main.aip'))) return [];
  let rendered: Map<string, string>;
  try {
    rendered = renderPack(root);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const [rel, content] of rendered) {
    const abs = nodePath.join(root, PACK_DIR, ...rel.split('/'));
    if (!exists(abs) || readText(abs) !== content) out.push(rel);
  }
  return out;
}
