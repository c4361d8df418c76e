/**
 * Which lifecycle stage of the top-level run wrote each file, so that `--write` can follow AIPack's order of
 * effects: AIPack writes a file when a stage saves it, so what a stage wrote stays written when a later stage
 * fails. The simulator keeps the run's writes in its overlay and writes them at the end, one batch per stage (each
 * batch all or nothing), in the order the stages ran.
 */
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import { isInside } from '../support/host-fs.ts';
import { delegateTo, type Vfs } from '../support/vfs.ts';

/** The writes of one stage: what `writeChanges` takes, and the stage's name for the report. */
export interface WriteBatch {
  /** `Before All`, `Data (task 1)`, `Output (task 1)`, `After All`; a redo run's stages say `[redo N]` */
  stage: string;
  changes: Array<readonly [string, Uint8Array | null]>;
  dirs: string[];
}

/** The stage (an index into the run's list of stages) of the last write of each path, and of each deleted dir. */
export class WriteStamps {
  private readonly files = new Map<string, number>();
  private readonly deletedDirs: Array<[string, number]> = [];
  /** the stages of the run, in the order they started */
  readonly stages: string[] = [];

  /** A stage of the top-level run starts: the writes from now on are its. */
  begin(stage: string): void {
    this.stages.push(stage);
  }

  private get current(): number {
    return Math.max(this.stages.length - 1, 0);
  }

  /** `vfs` recording, for each write, delete or new dir, the stage it happened in. */
  watch(vfs: Vfs): Vfs {
    return {
      ...delegateTo(vfs),
      writeFile: (abs, content) => (this.files.set(abs, this.current), vfs.writeFile(abs, content)),
      appendFile: (abs, bytes) => (this.files.set(abs, this.current), vfs.appendFile(abs, bytes)),
      deleteFile: (abs) => (this.files.set(abs, this.current), vfs.deleteFile(abs)),
      deleteDir: (abs) => (this.deletedDirs.push([abs, this.current]), vfs.deleteDir(abs)),
      mkdirp: (abs) => (this.files.set(abs, this.current), vfs.mkdirp(abs)),
    };
  }

  /** The stage a path's final state comes from: its last write, or a later delete of a dir holding it. */
  stageOf(abs: string): number {
    let stage = this.files.get(abs) ?? 0;
    for (const [dir, at] of this.deletedDirs) if (at > stage && isInside(abs, dir)) stage = at;
    return stage;
  }

  /**
   * What a run leaves to write (`Vfs.pending()`), split into one batch per stage that wrote something, in stage
   * order. A file written by two stages is in the later one's batch, with its final content.
   */
  batches(pending: { changes: Array<readonly [string, Uint8Array | null]>; dirs: string[] }): WriteBatch[] {
    const byStage = new Map<number, WriteBatch>();
    const batchOf = (abs: string) => {
      const at = this.stageOf(abs);
      let b = byStage.get(at);
      if (!b) byStage.set(at, (b = { stage: this.stages[at] ?? 'the run', changes: [], dirs: [] }));
      return b;
    };
    for (const change of pending.changes) batchOf(change[0]).changes.push(change);
    for (const dir of pending.dirs) {
      // a folder made for a file it holds (a save creates its folders) goes with the first stage that wrote below it
      const below = [...this.files].filter(([abs]) => abs !== dir && isInside(abs, dir)).map(([, at]) => at);
      const at = this.files.get(dir) ?? (below.length > 0 ? Math.min(...below) : 0);
      let b = byStage.get(at);
      if (!b) byStage.set(at, (b = { stage: this.stages[at] ?? 'the run', changes: [], dirs: [] }));
      b.dirs.push(dir);
    }
    return [...byStage.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
  }
}

/** A stage of the top-level run as the run report names it: `Output (task 2)`, `After All [redo 1]`. */
export function stageLabel(stage: LifecycleStage, taskNum: number | undefined, redo: number): string {
  const name = stage.replace(/([a-z])([A-Z])/g, '$1 $2');
  return `${name}${taskNum !== undefined ? ` (task ${taskNum})` : ''}${redo > 0 ? ` [redo ${redo}]` : ''}`;
}
