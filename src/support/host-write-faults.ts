/** The test seam of host writes: a fault injected at the n-th write operation (tests only: a plain function call). */

interface Fault {
  at: number;
  code: 'ENOSPC' | 'EACCES' | 'EIO';
  seen: number;
}
let fault: Fault | undefined;

/**
 * Test seam: the `at`-th write operation from now (1-based: a mkdir, a temp file, a link, a rename) fails with
 * `code`, once. `undefined` turns it off. Returns how many write operations ran since the last call.
 */
export function injectWriteFault(spec: { at: number; code: Fault['code'] } | undefined): number {
  const seen = fault?.seen ?? counted;
  counted = 0;
  fault = spec ? { ...spec, seen: 0 } : undefined;
  return seen;
}
let counted = 0;

/** Counts one write operation, and fails it when it is the injected one. */
export function writeOp(what: string): void {
  counted++;
  if (!fault) return;
  fault.seen++;
  if (fault.seen === fault.at) {
    const err = new Error(`${fault.code}: injected fault, ${what}`) as NodeJS.ErrnoException;
    err.code = fault.code;
    throw err;
  }
}
