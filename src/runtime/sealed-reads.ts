/**
 * Files many runs read from the disk again and again, kept as first read for as long as their holder lives: a
 * suite's cases each `require` the pack's modules anew (every stage does, in AIPack too), and reading them was about
 * a sixth of a contract case. A file is kept only when its read was confined (read-guard.ts): a later read tells its
 * confinement the real path and size the first one opened, so the guard and the run's memory cap judge it as
 * before; only the disk is not asked again. What changes on the disk meanwhile is not seen by the holder's later
 * runs. Bounded in bytes; each read gets its own copy.
 */
import { isInside, realPathOf } from '../support/host-paths.ts';
import type { Confine } from '../support/vfs.ts';

interface Kept {
  real: string;
  size: number;
  data: Uint8Array;
}

/** Bytes kept by default: a pack's modules are ~0.3 MB. */
export const SEALED_READS_BYTES = 16 * 1024 * 1024;

export class SealedReads {
  private readonly kept = new Map<string, Kept>();
  private held = 0;
  private rootReal: string | undefined;

  /** `root`: the absolute folder whose files are kept; `maxBytes`: what is kept at most (a file past it is read each time). */
  constructor(
    readonly root: string,
    private readonly maxBytes = SEALED_READS_BYTES,
  ) {}

  /** Whether a file at `abs` (absolute, normalised) may be kept. */
  covers(abs: string): boolean {
    return isInside(abs, this.root);
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.held;
  }

  /**
   * The real path the kept read of `abs` opened, or undefined when `abs` is not kept; for the root itself, its real
   * path as found the first time it was asked (the folder the kept files were read below).
   */
  realOf(abs: string): string | undefined {
    if (abs === this.root) return (this.rootReal ??= realPathOf(this.root, true));
    return this.kept.get(abs)?.real;
  }

  /** The file at `abs` as `read` (a confined disk read) gives it, from the first such read once it was kept. */
  read(abs: string, confine: Confine, read: (abs: string, confine: Confine) => Uint8Array | undefined): Uint8Array | undefined {
    const kept = this.kept.get(abs);
    if (kept) {
      confine(kept.real, kept.size);
      return kept.data.slice();
    }
    let opened: { real: string; size: number } | undefined;
    const data = read(abs, (real, size) => {
      confine(real, size);
      opened = { real, size };
    });
    if (data !== undefined && opened !== undefined && this.held + data.byteLength <= this.maxBytes) {
      this.kept.set(abs, { ...opened, data: data.slice() });
      this.held += data.byteLength;
    }
    return data;
  }
}
