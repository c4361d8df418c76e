import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExclusive, isTempName, makeDirs, makeTempDir, removeFile, syncTree, writeFileAtomic, writeFileBelow } from '../../src/support/host-writes.ts';
import { HostFsError } from '../../src/support/host-paths.ts';
import { tempRoot } from '../helpers/temp-root.ts';

const { at, put, root } = tempRoot('host-writes-');

describe('writes', () => {
  it('writeFileAtomic replaces a symlink instead of writing through it, and leaves no temp file', () => {
    put('target.txt', 'keep');
    fs.symlinkSync(at('target.txt'), at('out.txt'));
    writeFileAtomic(at('out.txt'), 'new');
    expect(fs.readFileSync(at('target.txt'), 'utf8')).toBe('keep');
    expect(fs.lstatSync(at('out.txt')).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(at('out.txt'), 'utf8')).toBe('new');
    expect(fs.readdirSync(root()).filter(isTempName)).toEqual([]);
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
    expect(() => makeDirs(root(), 'dir/sub')).toThrow(/is a symlink \(to '.*elsewhere'\)/);
    expect(() => makeDirs(root(), 'a/../b')).toThrow(/climbs out/);
    expect(makeDirs(root(), 'dir/sub', { replace: true })).toEqual([at('dir'), at('dir', 'sub')]);
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
  it('writes below the root(), making its directories', () => {
    fs.mkdirSync(at('proj'));
    writeFileBelow(at('proj'), at('proj', 'reports', 'r.xml'), 'R');
    expect(fs.readFileSync(at('proj', 'reports', 'r.xml'), 'utf8')).toBe('R');
  });

  it('refuses a path outside the root() and a symlinked directory on the way; nothing is written outside', () => {
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
