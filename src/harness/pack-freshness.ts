/**
 * Whether this repository's built pack (`pack/`, what the harness runs) matches its sources (`lua/` and the
 * contract). Only meaningful in a checkout that has the sources; elsewhere there is nothing to compare.
 */
import { exists, readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { PACK_DIR, SOURCE_DIR } from '../pack/layout.ts';
import { REPO_ROOT } from '../runtime/packs.ts';

/** Pack files that `build` would write differently (or that are missing), pack-relative; [] when fresh. */
export async function stalePackFiles(root = REPO_ROOT): Promise<string[]> {
  // the installed package has no lua/: it answers before loading the builder (the contract, its Lua generator)
  if (!exists(nodePath.join(root, SOURCE_DIR, 'main.aip'))) return [];
  const { renderPack } = await import('../pack/build.ts');
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
