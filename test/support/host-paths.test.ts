import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostFsError, checkUtf8Name, isInside, realPathOf } from '../../src/support/host-paths.ts';
import { tempRoot } from '../helpers/temp-root.ts';

const { at } = tempRoot('host-paths-');

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

  it('realPathOf keeps a deep missing rest, and a dangling link as written', () => {
    fs.mkdirSync(at('deep-real'));
    fs.symlinkSync(at('deep-real'), at('deep-link'));
    fs.symlinkSync(at('nowhere'), at('dangling'));
    expect(realPathOf(at('deep-link', 'a', 'b', 'c', 'd.txt'))).toBe(at('deep-real', 'a', 'b', 'c', 'd.txt'));
    expect(realPathOf(at('dangling', 'x', 'y', 'z'))).toBe(fs.realpathSync(at()) + '/dangling/x/y/z');
    expect(realPathOf('/')).toBe('/');
  });

  it('realPathOf asked first by a stat (a path often missing) gives the same paths', () => {
    fs.mkdirSync(at('s-real'));
    fs.symlinkSync(at('s-real'), at('s-link'));
    fs.symlinkSync(at('s-nowhere'), at('s-dangling'));
    for (const p of [at('s-link'), at('s-link', 'missing', 'x.txt'), at('s-dangling'), at('s-dangling', 'y'), at('s-absent'), '/']) {
      expect(realPathOf(p, true)).toBe(realPathOf(p));
    }
    expect(realPathOf(at('s-link'), true)).toBe(fs.realpathSync(at('s-real')));
  });

  it('checkUtf8Name refuses names decoded with replacement characters', () => {
    expect(() => checkUtf8Name('a\uFFFDb', 'listing')).toThrow(HostFsError);
    expect(() => checkUtf8Name('ok.txt', 'listing')).not.toThrow();
  });
});
