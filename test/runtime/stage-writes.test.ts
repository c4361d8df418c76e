import { mkdirSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { stageLabel, WriteStamps } from '../../src/runtime/stage-writes.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { tmpDir } from '../harness/helpers.ts';

/** An overlay over a fresh workspace, its writes stamped by stage; `old/a.txt` and `old/b.txt` exist on disk. */
function setup() {
  const ws = tmpDir();
  mkdirSync(nodePath.join(ws, 'old'));
  writeFileSync(nodePath.join(ws, 'old/a.txt'), 'a');
  writeFileSync(nodePath.join(ws, 'old/b.txt'), 'b');
  const overlay = createOverlayVfs(ws);
  const stamps = new WriteStamps();
  const vfs = stamps.watch(overlay);
  const at = (rel: string) => nodePath.join(ws, rel);
  const batches = () =>
    stamps.batches(overlay.pending()).map((b) => [b.stage, b.changes.map(([abs, data]) => [nodePath.relative(ws, abs), data && Buffer.from(data).toString()])]);
  return { vfs, stamps, at, batches };
}

describe('WriteStamps: the writes of a run, one batch per stage', () => {
  it('puts each change in the batch of the stage that made it, in stage order, stages without writes left out', () => {
    const { vfs, stamps, at, batches } = setup();
    stamps.begin('Before All');
    vfs.writeFile(at('x.txt'), 'x');
    stamps.begin('Data (task 1)');
    stamps.begin('Output (task 1)');
    vfs.writeFile(at('y.txt'), 'y');
    vfs.deleteFile(at('old/a.txt'));
    expect(batches()).toEqual([
      ['Before All', [['x.txt', 'x']]],
      ['Output (task 1)', [['y.txt', 'y'], ['old/a.txt', null]]],
    ]);
  });

  it('a file written by two stages is in the later batch, with its final content', () => {
    const { vfs, stamps, at, batches } = setup();
    stamps.begin('Output (task 1)');
    vfs.writeFile(at('p.md'), 'answer');
    stamps.begin('After All');
    vfs.writeFile(at('p.md'), 'answer, synced');
    expect(batches()).toEqual([['After All', [['p.md', 'answer, synced']]]]);
  });

  it('a later delete of a directory moves the files below it to the stage of the delete', () => {
    const { vfs, stamps, at, batches } = setup();
    stamps.begin('Before All');
    vfs.writeFile(at('old/c.txt'), 'c');
    stamps.begin('After All');
    vfs.deleteDir(at('old'));
    const [[stage, changes]] = batches() as [[string, [string, string | null][]]];
    expect(stage).toBe('After All');
    expect(changes.map(([p, d]) => [p, d]).sort()).toEqual([
      ['old/a.txt', null],
      ['old/b.txt', null],
    ]);
  });

  it('a folder a save created goes with the first stage that wrote below it', () => {
    const { vfs, stamps, at } = setup();
    stamps.begin('Before All');
    vfs.writeFile(at('x.txt'), 'x');
    stamps.begin('After All');
    vfs.writeFile(at('deep/er/y.txt'), 'y');
    const dirs = [at('deep'), at('deep/er'), at('empty')];
    expect(stamps.batches({ changes: [], dirs }).map((b) => [b.stage, b.dirs])).toEqual([
      ['Before All', [at('empty')]],
      ['After All', [at('deep'), at('deep/er')]],
    ]);
  });

  it('writes made before any stage began belong to the first batch', () => {
    const { vfs, at, stamps } = setup();
    vfs.writeFile(at('early.txt'), 'e');
    expect(stamps.batches({ changes: [[at('early.txt'), new Uint8Array([101])]], dirs: [] }).map((b) => b.stage)).toEqual(['the run']);
  });
});

describe('stageLabel', () => {
  it('names a stage of the top-level run as the run report does', () => {
    expect(stageLabel('Output', 2, 0)).toBe('Output (task 2)');
    expect(stageLabel('AfterAll', undefined, 1)).toBe('After All [redo 1]');
    expect(stageLabel('BeforeAll', undefined, 0)).toBe('Before All');
  });
});
