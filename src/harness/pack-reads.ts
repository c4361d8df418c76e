/**
 * A suite reads each pack's files from the disk once (sealed-reads.ts): its cases `require` the same modules anew at
 * every stage. The scope is one suite run: a case sees the pack as the suite found it, and the next suite (a watch
 * rerun, say) reads it again. A stage run outside a suite reads the disk each time.
 */
import nodePath from 'node:path';
import { SealedReads } from '../runtime/sealed-reads.ts';

let scope: Map<string, SealedReads> | undefined;

/** Runs `body` as one suite: the packs' files its stage runs read are read once. */
export function withPackReads<T>(body: () => T): T {
  const outer = scope;
  scope = new Map();
  try {
    return body();
  } finally {
    scope = outer;
  }
}

/** The reads of the pack at `packDir` kept for the suite now running, or undefined outside one. */
export function packReadsOf(packDir: string): SealedReads | undefined {
  if (!scope) return undefined;
  const dir = nodePath.resolve(packDir);
  let reads = scope.get(dir);
  if (!reads) scope.set(dir, (reads = new SealedReads(dir)));
  return reads;
}
