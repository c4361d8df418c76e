import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { walkFiles } from '../../src/support/walk.ts';

let root: string;
const put = (rel: string) => {
  fs.mkdirSync(nodePath.dirname(nodePath.join(root, rel)), { recursive: true });
  fs.writeFileSync(nodePath.join(root, rel), rel);
};
const rels = (files: string[]) => files.map((f) => nodePath.relative(root, f));

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'walk-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('walkFiles', () => {
  it('lists files in name order, skipping tooling folders by default', () => {
    put('b.txt');
    put('a/z.txt');
    put('node_modules/x.js');
    put('.git/config');
    expect(rels(walkFiles(root))).toEqual(['a/z.txt', 'b.txt']);
    expect(rels(walkFiles(root, () => false))).toEqual(['.git/config', 'a/z.txt', 'b.txt', 'node_modules/x.js']);
  });

  it('walks each real directory once, so a link to a parent cannot loop; a dangling link is passed over', () => {
    put('d/f.txt');
    fs.symlinkSync(root, nodePath.join(root, 'd', 'up'));
    fs.symlinkSync(nodePath.join(root, 'none'), nodePath.join(root, 'dangling'));
    expect(rels(walkFiles(root))).toEqual(['d/f.txt']);
  });

  it('lets check see every entry before it is taken, and stop the walk', () => {
    put('a/secret.key');
    const seen: string[] = [];
    expect(() => walkFiles(root, undefined, (abs) => {
      seen.push(nodePath.relative(root, abs));
      if (abs.endsWith('.key')) throw new Error(`refused ${abs}`);
    })).toThrow(/refused .*secret.key/);
    expect(seen).toEqual(['a', 'a/secret.key']);
  });
});
