import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HostFsError,
  checkUtf8Name,
  createExclusive,
  injectWriteFault,
  isInside,
  isTempName,
  listNames,
  makeTempDir,
  makeDirs,
  readConfined,
  readUnder,
  realPathOf,
  removeFile,
  syncTree,
  writeAllOrNothing,
  writeFileAtomic,
  writeFileBelow,
} from '../../src/support/host-fs.ts';

let root: string;
const at = (...p: string[]) => nodePath.join(root, ...p);
const put = (rel: string, text: string) => {
  fs.mkdirSync(nodePath.dirname(at(rel)), { recursive: true });
  fs.writeFileSync(at(rel), text);
};

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'host-fs-')));
});
afterEach(() => {
  injectWriteFault(undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

describe('paths', () => {
  it('isInside compares whole segments', () => {
    expect(isInside('/a/b', '/a')).toBe(true);
    expect(isInside('/a', '/a')).toBe(true);
    expect(isInside('/ab', '/a')).toBe(false);
  });

  it('realPathOf resolves the existing prefix and keeps the missing rest', () => {
    fs.mkdirSync(at('real'));
    fs.symlinkSync(at('real'), at('link'));
    expect(realPathOf(at('link', 'not', 'yet.txt'))).toBe(at('real', 'not', 'yet.txt'));
  });

  it('checkUtf8Name refuses names decoded with replacement characters', () => {
    expect(() => checkUtf8Name('a\uFFFDb', 'listing')).toThrow(HostFsError);
    expect(() => checkUtf8Name('ok.txt', 'listing')).not.toThrow();
  });
});

describe('reads', () => {
  it('readUnder reads below the root and refuses a symlink leading out of it', () => {
    put('ws/a.txt', 'A');
    put('secret.txt', 'S');
    fs.symlinkSync(at('secret.txt'), at('ws', 'leak.txt'));
    expect(readUnder(at('ws'), at('ws', 'a.txt')).toString()).toBe('A');
    expect(() => readUnder(at('ws'), at('ws', 'leak.txt'))).toThrow(/leads to '.*secret.txt', outside/);
    expect(() => readUnder(at('ws'), at('secret.txt'))).toThrow(/is outside/);
  });

  it('listNames sorts, and is empty for a missing directory', () => {
    put('d/b', '');
    put('d/a', '');
    expect(listNames(at('d'))).toEqual(['a', 'b']);
    expect(listNames(at('none'))).toEqual([]);
  });
});

describe('writes', () => {
  it('writeFileAtomic replaces a symlink instead of writing through it, and leaves no temp file', () => {
    put('target.txt', 'keep');
    fs.symlinkSync(at('target.txt'), at('out.txt'));
    writeFileAtomic(at('out.txt'), 'new');
    expect(fs.readFileSync(at('target.txt'), 'utf8')).toBe('keep');
    expect(fs.lstatSync(at('out.txt')).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(at('out.txt'), 'utf8')).toBe('new');
    expect(fs.readdirSync(root).filter(isTempName)).toEqual([]);
  });

  it('createExclusive creates once; removeFile removes a link, not its target', () => {
    expect(createExclusive(at('lock'), '1')).toBe(true);
    expect(createExclusive(at('lock'), '2')).toBe(false);
    expect(fs.readFileSync(at('lock'), 'utf8')).toBe('1');
    fs.symlinkSync(at('lock'), at('l2'));
    expect(removeFile(at('l2'))).toBe(true);
    expect(removeFile(at('l2'))).toBe(false);
    expect(fs.existsSync(at('lock'))).toBe(true);
  });

  it('makeDirs refuses a symlinked segment and "..", or replaces it when the tree is the tool\'s own', () => {
    fs.mkdirSync(at('elsewhere'));
    fs.symlinkSync(at('elsewhere'), at('dir'));
    expect(() => makeDirs(root, 'dir/sub')).toThrow(/is a symlink \(to '.*elsewhere'\)/);
    expect(() => makeDirs(root, 'a/../b')).toThrow(/climbs out/);
    expect(makeDirs(root, 'dir/sub', { replace: true })).toEqual([at('dir'), at('dir', 'sub')]);
    expect(fs.readdirSync(at('elsewhere'))).toEqual([]);
  });

  it('syncTree writes what differs and removes the rest', () => {
    fs.mkdirSync(at('t'));
    put('t/same.txt', 'same');
    put('t/old/gone.txt', 'x');
    const r = syncTree(at('t'), new Map([['same.txt', 'same'], ['new/a.txt', 'a']]));
    expect(r).toEqual({ written: ['new/a.txt'], removed: ['old/gone.txt'] });
    expect(fs.existsSync(at('t', 'old'))).toBe(false);
  });

  it('writeAllOrNothing puts every file back when one write fails', () => {
    put('a.txt', 'A');
    put('b.txt', 'B');
    const changes = [
      { target: at('a.txt'), data: new TextEncoder().encode('A2'), shown: 'a.txt' },
      { target: at('b.txt'), data: null, shown: 'b.txt' },
      { target: at('new', 'c.txt'), data: new TextEncoder().encode('C'), shown: 'new/c.txt' },
    ];
    // the last operation (renaming c.txt in place) fails: a.txt was already replaced and b.txt deleted
    injectWriteFault({ at: 10, code: 'ENOSPC' });
    expect(() => writeAllOrNothing(root, changes)).toThrow(/no space left on the device/);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('A');
    expect(fs.readFileSync(at('b.txt'), 'utf8')).toBe('B');
    expect(fs.existsSync(at('new'))).toBe(false);
    expect(fs.readdirSync(root).sort()).toEqual(['a.txt', 'b.txt']);
    injectWriteFault(undefined);
    writeAllOrNothing(root, changes);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('A2');
    expect(fs.existsSync(at('b.txt'))).toBe(false);
    expect(fs.readFileSync(at('new', 'c.txt'), 'utf8')).toBe('C');
  });
});

describe('makeTempDir', () => {
  it('makes a new empty directory under the temp dir each time', () => {
    const a = makeTempDir('host-fs-test-');
    const b = makeTempDir('host-fs-test-');
    try {
      expect(a).not.toBe(b);
      expect(nodePath.dirname(a)).toBe(os.tmpdir());
      expect(nodePath.basename(a)).toMatch(/^host-fs-test-/);
      expect(fs.readdirSync(a)).toEqual([]);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
      fs.rmSync(b, { recursive: true, force: true });
    }
  });
});

describe('writeFileBelow', () => {
  it('writes below the root, making its directories', () => {
    fs.mkdirSync(at('proj'));
    writeFileBelow(at('proj'), at('proj', 'reports', 'r.xml'), 'R');
    expect(fs.readFileSync(at('proj', 'reports', 'r.xml'), 'utf8')).toBe('R');
  });

  it('refuses a path outside the root and a symlinked directory on the way; nothing is written outside', () => {
    fs.mkdirSync(at('proj'));
    fs.mkdirSync(at('home'));
    fs.symlinkSync(at('home'), at('proj', 'reports'));
    expect(() => writeFileBelow(at('proj'), at('home', 'authorized_keys'), 'K')).toThrow(`the report '${at('home', 'authorized_keys')}' is outside ${at('proj')}`);
    expect(() => writeFileBelow(at('proj'), at('proj', '..', 'x'), 'K')).toThrow(HostFsError);
    expect(() => writeFileBelow(at('proj'), at('proj'), 'K')).toThrow(HostFsError);
    expect(() => writeFileBelow(at('proj'), at('proj', 'reports', 'authorized_keys'), 'K')).toThrow(
      `${at('proj', 'reports')} is a symlink (to '${at('home')}'); the report does not write through it (remove it and try again)`,
    );
    expect(fs.readdirSync(at('home'))).toEqual([]);
  });

  it('replaces a symlink at the file itself instead of writing through it', () => {
    fs.mkdirSync(at('proj'));
    put('home/.bashrc', 'B');
    fs.symlinkSync(at('home', '.bashrc'), at('proj', 'r.xml'));
    writeFileBelow(at('proj'), at('proj', 'r.xml'), 'R');
    expect(fs.readFileSync(at('home', '.bashrc'), 'utf8')).toBe('B');
    expect(fs.lstatSync(at('proj', 'r.xml')).isFile()).toBe(true);
    expect(fs.readFileSync(at('proj', 'r.xml'), 'utf8')).toBe('R');
  });
});

describe('readConfined', () => {
  it('tells confine the real path of the file it opened before reading it; confine refuses by throwing', () => {
    put('ws/a.txt', 'A');
    put('out/s.txt', 'S');
    fs.symlinkSync(at('out', 's.txt'), at('ws', 'link.txt'));
    fs.symlinkSync(at('out'), at('ws', 'dir'));
    const seen: string[] = [];
    const confine = (real: string) => {
      seen.push(real);
      if (!isInside(real, at('ws'))) throw new HostFsError(`refused ${real}`);
    };
    expect(Buffer.from(readConfined(at('ws', 'a.txt'), confine)!).toString()).toBe('A');
    expect(() => readConfined(at('ws', 'link.txt'), confine)).toThrow(`refused ${at('out', 's.txt')}`);
    expect(() => readConfined(at('ws', 'dir', 's.txt'), confine)).toThrow(`refused ${at('out', 's.txt')}`);
    expect(seen).toEqual([at('ws', 'a.txt'), at('out', 's.txt'), at('out', 's.txt')]);
  });

  it('answers undefined for a missing file, a directory and a FIFO (opened without blocking)', () => {
    fs.mkdirSync(at('d'));
    const never = () => {
      throw new Error('not reached');
    };
    expect(readConfined(at('missing'), never)).toBeUndefined();
    expect(readConfined(at('d'), never)).toBeUndefined();
    execFileSync('mkfifo', [at('fifo')]);
    expect(readConfined(at('fifo'), never)).toBeUndefined();
  });
});
