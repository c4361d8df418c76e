import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guardReads, readPolicy } from '../../src/runtime/read-guard.ts';
import { capReads, changesRunReads, countWrites, createOverlayVfs, watchWrites } from '../../src/runtime/vfs.ts';

let root: string;
let ws: string;

/** Every file under a dir, relative, with content: the real disk state. */
function diskState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = nodePath.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else out[nodePath.relative(dir, abs)] = fs.readFileSync(abs, 'utf8');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

beforeEach(() => {
  root = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'vfs-test-'));
  ws = nodePath.join(root, 'ws');
  fs.mkdirSync(nodePath.join(ws, 'sub'), { recursive: true });
  fs.writeFileSync(nodePath.join(ws, 'a.txt'), 'A');
  fs.writeFileSync(nodePath.join(ws, 'sub', 'b.txt'), 'B');
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('createOverlayVfs folders made by written files', () => {
  it('holds a folder while a written file lies below it, even when the disk loses it meanwhile', () => {
    const vfs = createOverlayVfs(ws);
    const dir = nodePath.join(ws, 'sub', 'made');
    fs.mkdirSync(dir);
    // the folder is on the disk as the file is written: the run records no folder of its own
    vfs.writeFile(nodePath.join(dir, 'one.txt'), '1');
    vfs.writeFile(nodePath.join(dir, 'deep', 'two.txt'), '2');
    fs.rmdirSync(dir);
    expect(vfs.isDir(dir)).toBe(true);
    expect(vfs.stat(dir)?.size).toBe(0);
    expect(() => vfs.writeFile(dir, 'x')).toThrow(/it is a directory/);
    vfs.deleteFile(nodePath.join(dir, 'one.txt'));
    expect(vfs.isDir(dir)).toBe(true);
    expect(vfs.isDir(nodePath.join(dir, 'elsewhere'))).toBe(false);
    // its last written file gone, nothing keeps the folder the disk lost
    vfs.deleteFile(nodePath.join(dir, 'deep', 'two.txt'));
    expect(vfs.isDir(dir)).toBe(false);
  });

  it('does not take a deleted disk file for one that makes its folder', () => {
    const vfs = createOverlayVfs(ws);
    vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'));
    expect(vfs.isFile(nodePath.join(ws, 'sub', 'b.txt'))).toBe(false);
    // writing a file where a deleted one was, then at a folder path under a written file, behaves as on a disk
    vfs.writeFile(nodePath.join(ws, 'sub', 'b.txt'), 'again');
    expect(vfs.readFile(nodePath.join(ws, 'sub', 'b.txt'))).toBe('again');
    expect(() => vfs.writeFile(nodePath.join(ws, 'sub', 'b.txt', 'inner.txt'), 'x')).toThrow(/is a file, expected a directory/);
  });
});

describe('createOverlayVfs commit of a removed folder', () => {
  it('shows the folder as the disk holds it afterwards: emptied, or with what the run wrote in it since', () => {
    fs.mkdirSync(nodePath.join(ws, 'd'));
    fs.writeFileSync(nodePath.join(ws, 'd', 'old.txt'), 'o');
    fs.mkdirSync(nodePath.join(ws, 'e'));
    fs.writeFileSync(nodePath.join(ws, 'e', 'old.txt'), 'o');
    const vfs = createOverlayVfs(ws);
    vfs.deleteDir(nodePath.join(ws, 'd'));
    vfs.writeFile(nodePath.join(ws, 'd', 'new.txt'), 'n');
    vfs.deleteDir(nodePath.join(ws, 'e'));
    expect(vfs.isDir(nodePath.join(ws, 'e'))).toBe(false);
    vfs.commit();
    expect(fs.readdirSync(nodePath.join(ws, 'd'))).toEqual(['new.txt']);
    expect(vfs.isDir(nodePath.join(ws, 'd'))).toBe(true);
    expect(vfs.listDir(nodePath.join(ws, 'd'))).toEqual([{ name: 'new.txt', isDir: false }]);
    expect(fs.readdirSync(nodePath.join(ws, 'e'))).toEqual([]);
    expect(vfs.isDir(nodePath.join(ws, 'e'))).toBe(true);
    expect(vfs.listDir(ws).map((x) => x.name)).toEqual(['a.txt', 'd', 'e', 'sub']);
  });
});

describe('createOverlayVfs against a disk given the same writes', () => {
  it('lists, and tells files from folders, as the disk does after the same random writes, deletes and new folders', () => {
    // a seeded generator (mulberry32): a failure names the seed and replays
    for (const seed of [1, 2, 3, 4]) {
      let state = seed;
      const random = (n: number): number => {
        state = (state + 0x6d2b79f5) | 0;
        let t = Math.imul(state ^ (state >>> 15), 1 | state);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) % n;
      };
      const oracle = nodePath.join(root, `oracle-${seed}`);
      const disk = nodePath.join(root, `disk-${seed}`);
      fs.cpSync(ws, disk, { recursive: true });
      // baseline files are the disk as the Vfs is told it is: the oracle holds them too
      const files = { 'base/one.txt': '1', 'base/deep/two.txt': '2', 'a/base.txt': '3' };
      fs.cpSync(ws, oracle, { recursive: true });
      for (const [rel, text] of Object.entries(files)) {
        fs.mkdirSync(nodePath.dirname(nodePath.join(oracle, rel)), { recursive: true });
        fs.writeFileSync(nodePath.join(oracle, rel), text);
      }
      const vfs = createOverlayVfs(disk, { files });
      const names = ['a', 'b', 'sub', 'base', 'deep', 'a.txt', 'b.txt', 'c.txt', 'one.txt'];
      const pick = (): string => Array.from({ length: 1 + random(3) }, () => names[random(names.length)]!).join('/');
      const kind = (abs: string): 'file' | 'dir' | undefined => {
        let st: fs.Stats | undefined;
        try {
          st = fs.statSync(abs);
        } catch {
          return undefined; // missing, or below a file (ENOTDIR)
        }
        return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : undefined;
      };
      const fileInTheWay = (rel: string): boolean => {
        const parts = rel.split('/');
        return parts.slice(0, -1).some((_, i) => kind(nodePath.join(oracle, ...parts.slice(0, i + 1))) === 'file');
      };
      const compare = (step: string): void => {
        const walk = (rel: string): void => {
          const expected = fs
            .readdirSync(nodePath.join(oracle, rel), { withFileTypes: true })
            .map((e) => ({ name: e.name, isDir: e.isDirectory() }))
            .sort((x, y) => (x.name < y.name ? -1 : 1));
          expect(vfs.listDir(nodePath.join(disk, rel)), `seed ${seed}, ${step}: listDir ${rel || '.'}`).toEqual(expected);
          for (const e of expected) if (e.isDir) walk(nodePath.join(rel, e.name));
        };
        walk('');
        for (let i = 0; i < 20; i++) {
          const rel = pick();
          const k = kind(nodePath.join(oracle, rel));
          expect([vfs.isFile(nodePath.join(disk, rel)), vfs.isDir(nodePath.join(disk, rel))], `seed ${seed}, ${step}: ${rel}`).toEqual([k === 'file', k === 'dir']);
        }
      };
      for (let step = 0; step < 120; step++) {
        const rel = pick();
        const inOracle = nodePath.join(oracle, rel);
        const inVfs = nodePath.join(disk, rel);
        const op = random(3);
        if (op === 0) {
          if (fileInTheWay(rel) || kind(inOracle) === 'dir') {
            expect(() => vfs.writeFile(inVfs, 'x'), `seed ${seed}, step ${step}: write ${rel}`).toThrow();
            continue;
          }
          fs.mkdirSync(nodePath.dirname(inOracle), { recursive: true });
          fs.writeFileSync(inOracle, `w${step}`);
          vfs.writeFile(inVfs, `w${step}`);
        } else if (op === 1) {
          const removed = kind(inOracle) === 'file';
          if (removed) fs.rmSync(inOracle);
          expect(vfs.deleteFile(inVfs), `seed ${seed}, step ${step}: delete ${rel}`).toBe(removed);
        } else {
          if (fileInTheWay(rel) || kind(inOracle) === 'file') continue;
          fs.mkdirSync(inOracle, { recursive: true });
          vfs.mkdirp(inVfs);
        }
        if (step % 10 === 9) compare(`step ${step}`);
      }
      compare('end');
    }
  });
});

describe('appendFile', () => {
  const enc = (s: string) => new TextEncoder().encode(s);

  it('grows a file the run wrote, in place, as a rewrite would; any other file is left to the caller', () => {
    const vfs = createOverlayVfs(ws);
    const log = nodePath.join(ws, 'logs', 'run.log');
    vfs.writeFile(log, 'one\n');
    const before = vfs.readBytes(log)!;
    const ctime = vfs.stat(log)!.ctimeMs;
    for (const line of ['two\n', 'three\n']) expect(vfs.appendFile(log, enc(line))).toBe(true);
    expect(vfs.readFile(log)).toBe('one\ntwo\nthree\n');
    expect(new TextDecoder().decode(before)).toBe('one\n');
    expect(vfs.stat(log)).toMatchObject({ size: 14, ctimeMs: ctime });
    expect(vfs.changes().created).toEqual(['logs/run.log']);
    // a file of the disk, a missing one and a deleted one are not held: nothing changes
    expect(vfs.appendFile(nodePath.join(ws, 'a.txt'), enc('more'))).toBe(false);
    expect(vfs.appendFile(nodePath.join(ws, 'missing.txt'), enc('x'))).toBe(false);
    vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'));
    expect(vfs.appendFile(nodePath.join(ws, 'sub', 'b.txt'), enc('x'))).toBe(false);
    expect(vfs.readFile(nodePath.join(ws, 'a.txt'))).toBe('A');
    expect(vfs.isFile(nodePath.join(ws, 'missing.txt'))).toBe(false);
    vfs.commit();
    expect(fs.readFileSync(log, 'utf8')).toBe('one\ntwo\nthree\n');
    // committed, the file is the disk's again
    expect(vfs.appendFile(log, enc('x'))).toBe(false);
  });

  it('charges what an append adds, before it is made, and gives it back when the file is not held', () => {
    const totals: number[] = [];
    let refuse = false;
    const vfs = countWrites(createOverlayVfs(ws), (delta, total) => {
      if (refuse && delta > 0) throw new Error('over the cap');
      totals.push(total);
    });
    const log = nodePath.join(ws, 'run.log');
    vfs.writeFile(log, '12345');
    expect(vfs.appendFile(log, enc('678'))).toBe(true);
    expect(totals).toEqual([5, 8]);
    expect(vfs.appendFile(nodePath.join(ws, 'a.txt'), enc('x'))).toBe(false);
    expect(totals.at(-1)).toBe(8);
    refuse = true;
    expect(() => vfs.appendFile(log, enc('9'))).toThrow('over the cap');
    expect(vfs.readFile(log)).toBe('12345678');
  });

  it('is refused where reading the file would be: past the read allowance, or outside what may be read', () => {
    let left = 100;
    const vfs = capReads(createOverlayVfs(ws), () => left);
    const log = nodePath.join(ws, 'run.log');
    vfs.writeFile(log, 'x'.repeat(50));
    left = 49;
    expect(() => vfs.appendFile(log, enc('y'))).toThrow(/memory limit exceeded: '.*run\.log': 50 bytes/);
    const guarded = guardReads(createOverlayVfs(ws), readPolicy(ws, [nodePath.join(ws, 'sub')]));
    guarded.writeFile(log, 'z');
    expect(guarded.appendFile(log, enc('z'))).toBe(false);
  });
});

describe('createOverlayVfs reads', () => {
  it('falls through to the disk', () => {
    const vfs = createOverlayVfs(ws);
    expect(vfs.readFile(nodePath.join(ws, 'a.txt'))).toBe('A');
    expect(vfs.isFile(nodePath.join(ws, 'sub', 'b.txt'))).toBe(true);
    expect(vfs.isDir(nodePath.join(ws, 'sub'))).toBe(true);
    expect(vfs.isFile(nodePath.join(ws, 'sub'))).toBe(false);
    expect(vfs.readFile(nodePath.join(ws, 'missing.txt'))).toBeUndefined();
    expect(vfs.stat(nodePath.join(ws, 'a.txt'))?.size).toBe(1);
  });

  it('refuses relative paths', () => {
    const vfs = createOverlayVfs(ws);
    expect(() => vfs.readFile('a.txt')).toThrow(/Vfs.readFile: expected an absolute path, got 'a.txt'/);
    expect(() => vfs.writeFile('a.txt', 'x')).toThrow(/absolute path/);
  });

  it('normalises paths', () => {
    const vfs = createOverlayVfs(ws);
    expect(vfs.readFile(`${ws}/sub/../a.txt`)).toBe('A');
  });
});

describe('createOverlayVfs writes', () => {
  it('keeps writes in memory until commit', () => {
    const before = diskState(ws);
    const vfs = createOverlayVfs(ws);
    vfs.writeFile(nodePath.join(ws, 'a.txt'), 'A2');
    vfs.writeFile(nodePath.join(ws, 'new', 'deep', 'c.txt'), 'C');
    expect(vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'))).toBe(true);

    expect(vfs.readFile(nodePath.join(ws, 'a.txt'))).toBe('A2');
    expect(vfs.readFile(nodePath.join(ws, 'new', 'deep', 'c.txt'))).toBe('C');
    expect(vfs.isDir(nodePath.join(ws, 'new', 'deep'))).toBe(true);
    expect(vfs.isFile(nodePath.join(ws, 'sub', 'b.txt'))).toBe(false);
    expect(vfs.readFile(nodePath.join(ws, 'sub', 'b.txt'))).toBeUndefined();
    expect(diskState(ws)).toEqual(before);
  });

  it('merges overlay and disk in listDir, sorted, without deleted files', () => {
    const vfs = createOverlayVfs(ws);
    vfs.writeFile(nodePath.join(ws, '0.txt'), '0');
    vfs.writeFile(nodePath.join(ws, 'z', 'y.txt'), 'y');
    vfs.deleteFile(nodePath.join(ws, 'a.txt'));
    expect(vfs.listDir(ws)).toEqual([
      { name: '0.txt', isDir: false },
      { name: 'sub', isDir: true },
      { name: 'z', isDir: true },
    ]);
    expect(vfs.listDir(nodePath.join(ws, 'nope'))).toEqual([]);
  });

  it('deleteFile answers false for missing files and directories', () => {
    const vfs = createOverlayVfs(ws);
    expect(vfs.deleteFile(nodePath.join(ws, 'missing'))).toBe(false);
    expect(vfs.deleteFile(nodePath.join(ws, 'sub'))).toBe(false);
    expect(vfs.deleteFile(nodePath.join(ws, 'a.txt'))).toBe(true);
    expect(vfs.deleteFile(nodePath.join(ws, 'a.txt'))).toBe(false);
  });

  it('keeps the parent dirs of a created then deleted file, like a real disk', () => {
    const vfs = createOverlayVfs(ws);
    const f = nodePath.join(ws, 'made', 'x.txt');
    vfs.writeFile(f, 'x');
    vfs.deleteFile(f);
    expect(vfs.isDir(nodePath.join(ws, 'made'))).toBe(true);
    expect(vfs.changes()).toEqual({ created: [], changed: [], deleted: [] });
  });

  it('refuses to write over a directory or below a file', () => {
    const vfs = createOverlayVfs(ws);
    expect(() => vfs.writeFile(nodePath.join(ws, 'sub'), 'x')).toThrow(/is a directory/);
    expect(() => vfs.writeFile(nodePath.join(ws, 'a.txt', 'x.txt'), 'x')).toThrow(/'.*a\.txt' is a file, expected a directory/);
    expect(() => vfs.mkdirp(nodePath.join(ws, 'a.txt'))).toThrow(/a file exists there/);
  });

  it('refuses a file where a parent dir is needed, whichever layer holds the file', () => {
    // on the disk, in the overlay, in the baseline (the workspace itself a file there), and above a dir on the
    // disk: a removed dir written over by a file, whose dirs below still exist on the disk
    fs.mkdirSync(nodePath.join(ws, 'sub', 'deep'));
    const vfs = createOverlayVfs(ws);
    expect(() => vfs.writeFile(nodePath.join(ws, 'a.txt', 'x', 'y.txt'), 'x')).toThrow(/'.*ws\/a\.txt' is a file, expected a directory/);
    vfs.writeFile(nodePath.join(ws, 'made', 'f'), 'f');
    expect(() => vfs.writeFile(nodePath.join(ws, 'made', 'f', 'g'), 'x')).toThrow(/'.*made\/f' is a file/);
    expect(() => vfs.mkdirp(nodePath.join(ws, 'made', 'f', 'd'))).toThrow(/Vfs\.mkdirp: cannot create '.*made\/f\/d': '.*made\/f' is a file/);
    expect(vfs.deleteDir(nodePath.join(ws, 'sub'))).toBe(true);
    vfs.writeFile(nodePath.join(ws, 'sub'), 'now a file');
    expect(() => vfs.writeFile(nodePath.join(ws, 'sub', 'deep', 'x.txt'), 'x')).toThrow(/'.*ws\/sub' is a file/);
    expect(() => vfs.writeFile(nodePath.join(ws, 'made'), 'x')).toThrow(/it is a directory/);
    const based = createOverlayVfs(ws, { files: { '.': 'the workspace as a file' } });
    expect(() => based.writeFile(nodePath.join(ws, 'sub', 'deep', 'x.txt'), 'x')).toThrow(/'.*ws' is a file/);
  });

  it('writes a file again in a dir it made without looking at the disk', () => {
    const vfs = createOverlayVfs(ws);
    const file = nodePath.join(ws, '.cache', 'records', 'r1', 'events.ndjson');
    vfs.writeFile(file, 'a\n');
    const stat = vi.spyOn(fs, 'statSync');
    try {
      vfs.writeFile(file, 'a\nb\n');
      expect(stat).not.toHaveBeenCalled();
    } finally {
      stat.mockRestore();
    }
    expect(vfs.readFile(file)).toBe('a\nb\n');
    expect(vfs.isDir(nodePath.join(ws, '.cache', 'records'))).toBe(true);
  });

  it('refuses changes under read-only roots', () => {
    const vfs = createOverlayVfs(ws, { readOnlyRoots: [nodePath.join(ws, 'sub')] });
    expect(() => vfs.writeFile(nodePath.join(ws, 'sub', 'x.txt'), 'x')).toThrow(/inside the read-only dir/);
    expect(() => vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'))).toThrow(/inside the read-only dir/);
    expect(() => vfs.mkdirp(nodePath.join(ws, 'sub', 'd'))).toThrow(/inside the read-only dir/);
    vfs.writeFile(nodePath.join(ws, 'ok.txt'), 'ok');
    expect(vfs.readFile(nodePath.join(ws, 'ok.txt'))).toBe('ok');
  });

  it('keeps binary content intact', () => {
    const vfs = createOverlayVfs(ws);
    const bytes = new Uint8Array([0, 255, 1, 128]);
    vfs.writeFile(nodePath.join(ws, 'bin'), bytes);
    expect(vfs.readBytes(nodePath.join(ws, 'bin'))).toEqual(bytes);
    expect(vfs.stat(nodePath.join(ws, 'bin'))?.size).toBe(4);
  });
});

describe('createOverlayVfs changes and snapshot', () => {
  it('lists created, changed and deleted workspace files against the disk', () => {
    const vfs = createOverlayVfs(ws);
    vfs.writeFile(nodePath.join(ws, 'a.txt'), 'A2');
    vfs.writeFile(nodePath.join(ws, 'sub', 'b.txt'), 'B'); // same content: no change
    vfs.writeFile(nodePath.join(ws, 'new', 'c.txt'), 'C');
    vfs.writeFile(nodePath.join(root, 'outside.txt'), 'O');
    vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'));
    expect(vfs.changes()).toEqual({ created: ['new/c.txt'], changed: ['a.txt'], deleted: ['sub/b.txt'] });
    expect(Object.fromEntries(vfs.snapshot())).toEqual({ 'a.txt': 'A2', 'new/c.txt': 'C', 'sub/b.txt': null });
  });

  it('treats opts.files as the initial state (not a change)', () => {
    const vfs = createOverlayVfs(ws, { files: { 'v/one.md': 'one', [nodePath.join(ws, 'v', 'two.md')]: 'two' } });
    expect(vfs.readFile(nodePath.join(ws, 'v', 'one.md'))).toBe('one');
    expect(vfs.isDir(nodePath.join(ws, 'v'))).toBe(true);
    expect(vfs.listDir(nodePath.join(ws, 'v')).map((e) => e.name)).toEqual(['one.md', 'two.md']);
    expect(vfs.changes()).toEqual({ created: [], changed: [], deleted: [] });
    vfs.writeFile(nodePath.join(ws, 'v', 'one.md'), 'ONE');
    vfs.deleteFile(nodePath.join(ws, 'v', 'two.md'));
    expect(vfs.changes()).toEqual({ created: [], changed: ['v/one.md'], deleted: ['v/two.md'] });
  });
});

describe('createOverlayVfs commit', () => {
  it('writes the workspace overlay to disk, and only that', () => {
    const vfs = createOverlayVfs(ws);
    vfs.writeFile(nodePath.join(ws, 'a.txt'), 'A2');
    vfs.writeFile(nodePath.join(ws, 'new', 'c.txt'), 'C');
    vfs.deleteFile(nodePath.join(ws, 'sub', 'b.txt'));
    vfs.mkdirp(nodePath.join(ws, 'empty-dir'));
    vfs.writeFile(nodePath.join(root, 'outside.txt'), 'O');
    vfs.commit();

    expect(diskState(ws)).toEqual({ 'a.txt': 'A2', [nodePath.join('new', 'c.txt')]: 'C' });
    expect(fs.existsSync(nodePath.join(ws, 'empty-dir'))).toBe(true);
    expect(fs.existsSync(nodePath.join(root, 'outside.txt'))).toBe(false);
    // outside writes stay readable in memory; the workspace is now in sync
    expect(vfs.readFile(nodePath.join(root, 'outside.txt'))).toBe('O');
    expect(vfs.changes()).toEqual({ created: [], changed: [], deleted: [] });
    expect(vfs.readFile(nodePath.join(ws, 'a.txt'))).toBe('A2');
  });

  it('never commits simulated .aipack-base content or virtual roots inside the workspace', () => {
    const home = nodePath.join(ws, '.aipack', '.sim-home');
    const vfs = createOverlayVfs(ws, { virtualRoots: [home] });
    vfs.writeFile(nodePath.join(ws, 'x', '.aipack-base', 'support', 'f.txt'), 'base');
    vfs.writeFile(nodePath.join(home, 'notes.txt'), 'home');
    vfs.writeFile(nodePath.join(ws, 'real.txt'), 'real');
    expect(vfs.changes().created).toEqual(['real.txt']);
    vfs.commit();
    expect(diskState(ws)).toEqual({ 'a.txt': 'A', [nodePath.join('sub', 'b.txt')]: 'B', 'real.txt': 'real' });
  });

  it('works on a workspace that does not exist on disk until commit', () => {
    const virtualWs = nodePath.join(root, 'not-yet');
    const vfs = createOverlayVfs(virtualWs, { files: { 'seed.md': 'seed' } });
    expect(vfs.isDir(virtualWs)).toBe(true);
    expect(vfs.readFile(nodePath.join(virtualWs, 'seed.md'))).toBe('seed');
    vfs.writeFile(nodePath.join(virtualWs, 'out.md'), 'out');
    expect(fs.existsSync(virtualWs)).toBe(false);
    vfs.commit();
    // the seed file is initial state, not a change: only out.md reaches the disk
    expect(diskState(virtualWs)).toEqual({ 'out.md': 'out' });
  });

  it('refuses to write through a symlink that leaves the workspace, before writing anything', () => {
    const outside = nodePath.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, nodePath.join(ws, 'link'));
    const vfs = createOverlayVfs(ws);
    vfs.writeFile(nodePath.join(ws, 'first.txt'), 'x');
    vfs.writeFile(nodePath.join(ws, 'link', 'evil.txt'), 'evil');
    expect(() => vfs.commit()).toThrow(/nothing was written:\n  link\/evil\.txt: its directory resolves to '.*', outside the workspace/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(nodePath.join(ws, 'first.txt'))).toBe(false);
  });

  it('refuses to overwrite a workspace symlink pointing to an outside file', () => {
    const target = nodePath.join(root, 'target.txt');
    fs.writeFileSync(target, 'keep');
    fs.symlinkSync(target, nodePath.join(ws, 'alias.txt'));
    const vfs = createOverlayVfs(ws);
    expect(vfs.readFile(nodePath.join(ws, 'alias.txt'))).toBe('keep');
    vfs.writeFile(nodePath.join(ws, 'alias.txt'), 'changed');
    expect(() => vfs.commit()).toThrow(/outside the workspace/);
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
  });

  it('deleteDir hides a disk or virtual dir and deletes every file below it', () => {
    const vfs = createOverlayVfs(ws, { files: { 'v/deep/c.txt': 'C' } });
    vfs.writeFile(nodePath.join(ws, 'sub', 'new', 'n.txt'), 'N');
    expect(vfs.deleteDir(nodePath.join(ws, 'sub'))).toBe(true);
    expect(vfs.deleteDir(nodePath.join(ws, 'v'))).toBe(true);
    expect(vfs.deleteDir(nodePath.join(ws, 'a.txt'))).toBe(false);
    for (const p of ['sub', 'sub/b.txt', 'sub/new', 'v', 'v/deep']) expect(vfs.stat(nodePath.join(ws, p)), p).toBeUndefined();
    expect(vfs.listDir(ws).map((e) => e.name)).toEqual(['a.txt']);
    expect(vfs.changes()).toEqual({ created: [], changed: [], deleted: ['sub/b.txt', 'v/deep/c.txt'] });
    vfs.writeFile(nodePath.join(ws, 'sub', 'again.txt'), 'again');
    expect(vfs.listDir(nodePath.join(ws, 'sub'))).toEqual([{ name: 'again.txt', isDir: false }]);
    vfs.commit();
    expect(diskState(ws)).toEqual({ 'a.txt': 'A', 'sub/again.txt': 'again' });
  });
});

describe('watchWrites', () => {
  it('calls back before each write, delete, mkdirp and commit, never for a read', () => {
    const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'watch-writes-'));
    try {
      const seen: string[] = [];
      const inner = createOverlayVfs(ws);
      const events: string[] = [];
      const vfs = watchWrites(inner, (e) => {
        seen.push(inner.isFile(nodePath.join(ws, 'a.txt')) ? 'a exists' : 'no a');
        events.push(e.kind === 'all' ? 'all' : `${e.kind} ${nodePath.relative(ws, e.abs)}`);
      });
      vfs.readFile(nodePath.join(ws, 'a.txt'));
      vfs.isFile(nodePath.join(ws, 'a.txt'));
      vfs.listDir(ws);
      expect(seen).toEqual([]);
      vfs.writeFile(nodePath.join(ws, 'a.txt'), 'A');
      vfs.mkdirp(nodePath.join(ws, 'd'));
      vfs.deleteFile(nodePath.join(ws, 'a.txt'));
      vfs.deleteDir(nodePath.join(ws, 'd'));
      vfs.commit();
      // before: the first write saw no file yet
      expect(seen).toEqual(['no a', 'a exists', 'a exists', 'no a', 'no a']);
      expect(events).toEqual(['file a.txt', 'dir d', 'file a.txt', 'dir d', 'all']);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('capReads', () => {
  it('reads a file up to the allowance; a bigger one is refused before it is read, a missing one is undefined', () => {
    const ws = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cap-')));
    try {
      fs.writeFileSync(nodePath.join(ws, 'small.txt'), 'x'.repeat(100));
      fs.writeFileSync(nodePath.join(ws, 'big.txt'), '');
      fs.truncateSync(nodePath.join(ws, 'big.txt'), 4 * 1024 * 1024 * 1024);
      let left = 100;
      const vfs = capReads(createOverlayVfs(ws), () => left);
      expect(vfs.readFile(nodePath.join(ws, 'small.txt'))).toHaveLength(100);
      expect(vfs.readLimit?.()).toBe(100);
      left = 99;
      expect(() => vfs.readBytes(nodePath.join(ws, 'small.txt'))).toThrow(`memory limit exceeded: '${nodePath.join(ws, 'small.txt')}': 100 bytes, more than the run may still bring into memory (99 bytes); nothing was read`);
      expect(() => vfs.readFile(nodePath.join(ws, 'big.txt'))).toThrow(/'.*big\.txt': 4096 MiB, more than/);
      expect(vfs.readFile(nodePath.join(ws, 'missing.txt'))).toBeUndefined();
      // what the run wrote is capped as well
      vfs.writeFile(nodePath.join(ws, 'w.txt'), 'y'.repeat(200));
      expect(() => vfs.readFile(nodePath.join(ws, 'w.txt'))).toThrow(/memory limit exceeded/);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('capReads, measured as opened', () => {
  it('measures a file of the disk by the descriptor it reads from (no stat of its own), one held in memory once read', () => {
    const ws = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cap-')));
    try {
      fs.writeFileSync(nodePath.join(ws, 'small.txt'), 'x'.repeat(100));
      const overlay = createOverlayVfs(ws);
      const looks: string[] = [];
      const counted = { ...overlay, stat: (abs: string) => (looks.push(`stat ${nodePath.basename(abs)}`), overlay.stat(abs)), isFile: (abs: string) => (looks.push(`isFile ${nodePath.basename(abs)}`), overlay.isFile(abs)) };
      let left = 100;
      const vfs = capReads(counted, () => left);
      expect(vfs.readBytes(nodePath.join(ws, 'small.txt'))).toHaveLength(100);
      expect(looks).toEqual([]);
      vfs.writeFile(nodePath.join(ws, 'w.txt'), 'y'.repeat(50));
      expect(vfs.readFile(nodePath.join(ws, 'w.txt'))).toHaveLength(50);
      expect(looks).toEqual(['stat w.txt']);
      // a confine of the caller's is told first, and refuses before the size is looked at
      left = 10;
      expect(() => vfs.readFile(nodePath.join(ws, 'small.txt'), () => { throw new Error('refused first'); })).toThrow('refused first');
      expect(() => vfs.readFile(nodePath.join(ws, 'small.txt'), (_real, size) => expect(size).toBe(100))).toThrow(/memory limit exceeded/);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('changesRunReads', () => {
  it('a file the run read, an agent file, a pack.toml, a removed folder of one, or a commit; not other files', () => {
    const texts = new Map([['/ws/a.aip', 'x'], ['/ws/.aipack/config.toml', undefined]]);
    expect(changesRunReads({ kind: 'all' }, texts)).toBe(true);
    expect(changesRunReads({ kind: 'file', abs: '/ws/.aipack/config.toml' }, texts)).toBe(true);
    expect(changesRunReads({ kind: 'file', abs: '/ws/new.aip' }, texts)).toBe(true);
    expect(changesRunReads({ kind: 'file', abs: '/p/pack.toml' }, texts)).toBe(true);
    expect(changesRunReads({ kind: 'dir', abs: '/ws/.aipack' }, texts)).toBe(true);
    expect(changesRunReads({ kind: 'dir', abs: '/ws/notes' }, texts)).toBe(false);
    expect(changesRunReads({ kind: 'file', abs: '/ws/notes.md' }, texts)).toBe(false);
  });
});
