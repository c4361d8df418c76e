/**
 * How many files of a layer lie below each folder: a layer of written files answers "does this folder hold any?"
 * in one lookup. A walk over the whole layer made the n-th new file of a run cost n steps (every write asks
 * whether its path is a folder), so writing many files cost their number squared.
 */
import nodePath from 'node:path';

export class FilesBelow {
  private readonly counts = new Map<string, number>();

  /** a file at `abs` (absolute, normalized) came into the layer (+1) or left it (-1) */
  count(abs: string, delta: 1 | -1): void {
    for (let d = nodePath.dirname(abs), below = abs; d !== below; below = d, d = nodePath.dirname(d)) {
      const n = (this.counts.get(d) ?? 0) + delta;
      if (n === 0) this.counts.delete(d);
      else this.counts.set(d, n);
    }
  }

  /** whether a file of the layer lies below the folder `abs` */
  has(abs: string): boolean {
    return this.counts.has(abs);
  }
}
