/**
 * The paths of a layer (the files a run wrote, its folders) by the folders they lie in: whether a folder holds
 * any, and which names in it lead to them, are each one lookup. Walks over the whole layer made the n-th new file
 * of a run cost n steps (every write asks whether its path is a folder) and every listing of a folder cost the
 * whole layer, so writing and listing many files cost their number squared.
 */
import nodePath from 'node:path';

/** A name in a folder: whether it is a counted path itself, and how many counted paths lie below it. */
export interface NameCount {
  self: number;
  below: number;
}

export class FilesBelow {
  private readonly byDir = new Map<string, Map<string, NameCount>>();

  /** a path `abs` (absolute, normalized) came into the layer (+1) or left it (-1) */
  count(abs: string, delta: 1 | -1): void {
    for (let below = abs, d = nodePath.dirname(abs); d !== below; below = d, d = nodePath.dirname(d)) {
      const name = below.slice(d === '/' ? 1 : d.length + 1);
      let names = this.byDir.get(d);
      if (!names) this.byDir.set(d, (names = new Map()));
      let c = names.get(name);
      if (!c) names.set(name, (c = { self: 0, below: 0 }));
      if (below === abs) c.self += delta;
      else c.below += delta;
      if (c.self === 0 && c.below === 0) {
        names.delete(name);
        if (names.size === 0) this.byDir.delete(d);
      }
    }
  }

  /** whether a path of the layer lies below the folder `abs` */
  has(abs: string): boolean {
    return this.byDir.has(abs);
  }

  /** the names in the folder `abs` that are paths of the layer or lead to some */
  in(abs: string): ReadonlyMap<string, NameCount> | undefined {
    return this.byDir.get(abs);
  }
}
