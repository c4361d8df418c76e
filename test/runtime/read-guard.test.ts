import fs from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ReadRefused, guardReads, hideDisk, offDiskRoots, readBelow, readPolicy } from '../../src/runtime/read-guard.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { tmpDir } from '../harness/helpers.ts';

const FIXTURE_WS = fileURLToPath(new URL('../../fixtures/runtime', import.meta.url));

function tree() {
  const root = fs.realpathSync(tmpDir());
  const ws = nodePath.join(root, 'ws');
  fs.mkdirSync(nodePath.join(ws, 'src'), { recursive: true });
  fs.writeFileSync(nodePath.join(ws, 'src', 'a.ts'), 'A');
  fs.writeFileSync(nodePath.join(root, 'secret.txt'), 'S');
  fs.symlinkSync(nodePath.join(root, 'secret.txt'), nodePath.join(ws, 'src', 'leak.txt'));
  return { root, ws };
}

describe('readPolicy', () => {
  it('allows real paths below a root only: "..", symlinks out and relative paths are outside', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws], ['/virtual/home']);
    expect(p.allows(nodePath.join(ws, 'src', 'a.ts'))).toBe(true);
    expect(p.allows('/virtual/home/x')).toBe(true);
    expect(p.allows(`${ws}/../secret.txt`)).toBe(false);
    expect(p.allows(nodePath.join(ws, 'src', 'leak.txt'))).toBe(false);
    expect(p.allows('src/a.ts')).toBe(false);
    // judged on the path as given too: a link from outside into the workspace does not make an outside path readable
    fs.symlinkSync(ws, nodePath.join(root, 'alias'));
    expect(p.allows(nodePath.join(root, 'alias', 'src', 'a.ts'))).toBe(false);
    expect(() => p.refuse(nodePath.join(root, 'secret.txt'))).toThrow(ReadRefused);
  });
});

describe('readPolicy with kept reads', () => {
  it('judges a path the Vfs answers from an earlier read by the real path that read opened, not by the disk now', () => {
    const { root, ws } = tree();
    const kept = new Map([
      [nodePath.join(ws, 'src', 'leak.txt'), nodePath.join(ws, 'src', 'a.ts')],
      [nodePath.join(ws, 'src', 'a.ts'), nodePath.join(root, 'secret.txt')],
    ]);
    const p = readPolicy(ws, [ws], [], (abs) => kept.get(abs));
    // a link out today, but the bytes it is answered with were read inside
    expect(p.allows(nodePath.join(ws, 'src', 'leak.txt'))).toBe(true);
    // and the other way round: kept from outside is outside, whatever the disk says now
    expect(p.allows(nodePath.join(ws, 'src', 'a.ts'))).toBe(false);
    // the path as written is still judged first, and paths not kept ask the disk
    expect(p.allows(`${ws}/../secret.txt`)).toBe(false);
    fs.symlinkSync(nodePath.join(root, 'secret.txt'), nodePath.join(ws, 'src', 'other.txt'));
    expect(p.allows(nodePath.join(ws, 'src', 'other.txt'))).toBe(false);
  });
});

describe('readPolicy roots', () => {
  it('takes a root below a virtual root as written: a link on the disk by its name opens nothing of where it leads', () => {
    const { root } = tree();
    fs.mkdirSync(nodePath.join(root, 'virtual'));
    fs.mkdirSync(nodePath.join(root, 'elsewhere'));
    fs.writeFileSync(nodePath.join(root, 'elsewhere', 'x.txt'), 'X');
    fs.symlinkSync(nodePath.join(root, 'elsewhere'), nodePath.join(root, 'virtual', 'ws'));
    const ws = nodePath.join(root, 'virtual', 'ws');
    const p = readPolicy(ws, [ws], [nodePath.join(root, 'virtual')]);
    expect(p.allows(nodePath.join(ws, 'x.txt'))).toBe(true);
    expect(p.allows(nodePath.join(root, 'elsewhere', 'x.txt'))).toBe(false);
    expect(p.roots).not.toContain(nodePath.join(root, 'elsewhere'));
  });

  it('takes the real path of a root the Vfs keeps files below from it, not from the disk now', () => {
    const { root, ws } = tree();
    const pack = nodePath.join(root, 'pack');
    fs.mkdirSync(nodePath.join(root, 'moved'));
    fs.symlinkSync(nodePath.join(root, 'moved'), pack);
    const p = readPolicy(ws, [ws, pack], [], (abs) => (abs === pack ? nodePath.join(root, 'as-found') : undefined));
    expect(p.roots).toContain(nodePath.join(root, 'as-found'));
    expect(p.roots).not.toContain(nodePath.join(root, 'moved'));
  });
});

describe('readPolicy.hold', () => {
  it('keeps each verdict while held (one realpath per path for a run), judges afresh once released', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws]);
    const later = nodePath.join(ws, 'src', 'later.txt');
    const release = p.hold();
    expect(p.allows(later)).toBe(true);
    // a link made by another process during the run: the held verdict stands, as the run's first look saw it
    fs.symlinkSync(nodePath.join(root, 'secret.txt'), later);
    expect(p.allows(later)).toBe(true);
    // a path not judged yet is judged now
    expect(p.allows(nodePath.join(ws, 'src', 'leak.txt'))).toBe(false);
    const inner = p.hold();
    inner();
    // holds nest: the outer one still keeps its verdicts
    expect(p.allows(later)).toBe(true);
    release();
    release(); // a second call changes nothing
    expect(p.allows(later)).toBe(false);
    // without a hold nothing is kept
    fs.unlinkSync(later);
    expect(p.allows(later)).toBe(true);
  });
});

describe('readPolicy.hold, directories', () => {
  it('judges every kind of path as an unheld policy does: links of files and of folders, missing paths, a file as a folder', () => {
    const { root, ws } = tree();
    fs.mkdirSync(nodePath.join(root, 'out'));
    fs.writeFileSync(nodePath.join(root, 'out', 'x.txt'), 'X');
    fs.symlinkSync(nodePath.join(root, 'out'), nodePath.join(ws, 'linked'));
    fs.symlinkSync(nodePath.join(ws, 'src'), nodePath.join(ws, 'inner'));
    fs.symlinkSync(nodePath.join(ws, 'nowhere'), nodePath.join(ws, 'src', 'dangling.txt'));
    fs.symlinkSync(nodePath.join(root, 'nowhere'), nodePath.join(ws, 'src', 'dangling-out.txt'));
    const paths = [
      ['src', 'a.ts'], ['src', 'leak.txt'], ['src', 'dangling.txt'], ['src', 'dangling-out.txt'], ['src', 'missing.txt'],
      ['src', 'no', 'such', 'file'], ['linked', 'x.txt'], ['linked', 'missing'], ['inner', 'a.ts'], ['inner', 'leak.txt'],
      ['src', 'a.ts', 'below-a-file'], ['src'], [],
    ].map((parts) => nodePath.join(ws, ...parts));
    const unheld = paths.map((abs) => readPolicy(ws, [ws]).allows(abs));
    // a dangling link is judged where it lies (its target is missing: there is nothing to read)
    expect(unheld).toEqual([true, false, true, true, true, true, false, false, true, false, true, true, true]);
    const p = readPolicy(ws, [ws]);
    const release = p.hold();
    // twice: the second time from the folders' kept real paths
    expect(paths.map((abs) => p.allows(abs))).toEqual(unheld);
    expect(paths.map((abs) => p.allows(abs + '-2'))).toEqual(paths.map((abs) => readPolicy(ws, [ws]).allows(abs + '-2')));
    release();
  });

  it('keeps a folder\'s real path while held, as it keeps verdicts; judges afresh once released', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws]);
    const release = p.hold();
    expect(p.allows(nodePath.join(ws, 'src', 'a.ts'))).toBe(true);
    // the folder swapped for a link out by another process during the run
    fs.renameSync(nodePath.join(ws, 'src'), nodePath.join(ws, 'old-src'));
    fs.symlinkSync(root, nodePath.join(ws, 'src'));
    expect(p.allows(nodePath.join(ws, 'src', 'secret.txt'))).toBe(true);
    release();
    expect(p.allows(nodePath.join(ws, 'src', 'secret.txt'))).toBe(false);
  });

  it('a read through a folder swapped for a link out is refused as its file is opened, whatever was held', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws]);
    const vfs = guardReads(createOverlayVfs(ws), p);
    const release = p.hold();
    expect(vfs.readFile(nodePath.join(ws, 'src', 'a.ts'))).toBe('A');
    fs.renameSync(nodePath.join(ws, 'src'), nodePath.join(ws, 'old-src'));
    fs.symlinkSync(root, nodePath.join(ws, 'src'));
    expect(() => vfs.readFile(nodePath.join(ws, 'src', 'secret.txt'))).toThrow(ReadRefused);
    release();
  });
});

describe('offDiskRoots', () => {
  it('gives the roots inside a folder kept off the disk and such folders inside a root, never a wider folder', () => {
    expect(offDiskRoots(['/home/user/project', '/packs'], ['/home/user'])).toEqual(['/home/user/project']);
    expect(offDiskRoots(['/ws'], ['/ws/.cache'])).toEqual(['/ws/.cache']);
    expect(offDiskRoots(['/ws'], ['/other'])).toEqual([]);
  });
});

describe('readPolicy, folders kept off the disk', () => {
  it('judges paths in a folder the Vfs never reads from the disk as written: a link there on the disk neither refuses the run\'s files nor leads out', () => {
    const { root, ws } = tree();
    fs.rmSync(nodePath.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(nodePath.join(root, 'out'));
    fs.writeFileSync(nodePath.join(root, 'out', 'secret.txt'), 'S');
    fs.symlinkSync(nodePath.join(root, 'out'), nodePath.join(ws, 'src'));
    const vfs = createOverlayVfs(ws, { files: { 'src/a.txt': 'A' }, diskless: [ws] });
    expect(vfs.diskless).toEqual([ws]);
    const guarded = guardReads(vfs, readPolicy(ws, [ws], vfs.diskless));
    expect(guarded.readFile(nodePath.join(ws, 'src', 'a.txt'))).toBe('A');
    expect(guarded.readFile(nodePath.join(ws, 'src', 'secret.txt'))).toBeUndefined();
    expect(guarded.isFile(nodePath.join(ws, 'src', 'secret.txt'))).toBe(false);
  });
});

describe('guardReads', () => {
  it('reads inside; outside, a read raises, a stat is absent and a listing leaves out what leads outside', () => {
    const { root, ws } = tree();
    const vfs = guardReads(createOverlayVfs(ws), [ws]);
    expect(vfs.readFile(nodePath.join(ws, 'src', 'a.ts'))).toBe('A');
    expect(() => vfs.readFile(nodePath.join(ws, 'src', 'leak.txt'))).toThrow(/^Read protection \(simulator\) - The path `.*leak.txt` is outside the workspace/);
    expect(vfs.stat(nodePath.join(root, 'secret.txt'))).toBeUndefined();
    expect(vfs.isFile(nodePath.join(root, 'secret.txt'))).toBe(false);
    expect(vfs.listDir(nodePath.join(ws, 'src')).map((e) => e.name)).toEqual(['a.ts']);
    expect(() => vfs.listDir(root)).toThrow(ReadRefused);
  });
});

describe('hideDisk', () => {
  it('shows nothing of the disk below a directory, but what the run wrote there', () => {
    const { root, ws } = tree();
    const vfs = hideDisk(createOverlayVfs(ws), root);
    expect(vfs.readFile(nodePath.join(ws, 'src', 'a.ts'))).toBeUndefined();
    expect(vfs.listDir(ws)).toEqual([]);
    vfs.writeFile(nodePath.join(ws, 'new.txt'), 'n');
    expect(vfs.changes().created).toEqual(['new.txt']);
  });
});

describe('guardReads on the overlay', () => {
  it('judges the normalised path, so /root/../etc is outside', () => {
    const vfs = guardReads(createOverlayVfs(FIXTURE_WS), [FIXTURE_WS]);
    expect(() => vfs.readFile(`${FIXTURE_WS}/../../../../../../etc/hostname`)).toThrow(/Read protection/);
    expect(vfs.isFile(`${FIXTURE_WS}/../../../../../../etc/hostname`)).toBe(false);
  });
});

describe('readBelow', () => {
  it('reads a relative key below the root; an absolute key, a climbing one or a link leading out is refused unread', () => {
    const { root, ws } = tree();
    const vfs = createOverlayVfs(ws);
    expect(readBelow(vfs, ws, 'src/a.ts')).toBe('A');
    expect(readBelow(vfs, ws, 'src/missing.ts')).toBeUndefined();
    for (const key of [nodePath.join(root, 'secret.txt'), '../secret.txt', 'src/../../secret.txt', '']) {
      expect(() => readBelow(vfs, ws, key)).toThrow(/^Read protection \(simulator\) - ".*": expected a workspace-relative path/);
    }
    // the read itself is guarded: a link below the root that leads out is not followed
    expect(() => readBelow(vfs, ws, 'src/leak.txt')).toThrow(ReadRefused);
  });
});

describe('readPolicy.confine', () => {
  it('judges the real path of an opened file against the roots, whatever verdict is held', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws]);
    const release = p.hold();
    expect(p.allows(nodePath.join(ws, 'src', 'a.ts'))).toBe(true);
    expect(() => p.confine(nodePath.join(ws, 'src', 'a.ts'))(nodePath.join(ws, 'src', 'a.ts'), 1)).not.toThrow();
    expect(() => p.confine(nodePath.join(ws, 'src', 'a.ts'))(nodePath.join(root, 'secret.txt'), 1)).toThrow(/^Read protection \(simulator\) - The path `.*a\.ts` is outside/);
    release();
  });

  it('a held verdict does not let a file swapped for a symlink be read through', () => {
    const { root, ws } = tree();
    const p = readPolicy(ws, [ws]);
    const vfs = guardReads(createOverlayVfs(ws), p);
    const release = p.hold();
    expect(vfs.readFile(nodePath.join(ws, 'src', 'a.ts'))).toBe('A');
    fs.rmSync(nodePath.join(ws, 'src', 'a.ts'));
    fs.symlinkSync(nodePath.join(root, 'secret.txt'), nodePath.join(ws, 'src', 'a.ts'));
    expect(p.allows(nodePath.join(ws, 'src', 'a.ts'))).toBe(true); // the verdict held for the run
    expect(() => vfs.readFile(nodePath.join(ws, 'src', 'a.ts'))).toThrow(ReadRefused);
    release();
  });
});
