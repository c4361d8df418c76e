import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listNames, readConfined, readUnder } from '../../src/support/host-reads.ts';
import { HostFsError, isInside } from '../../src/support/host-paths.ts';
import { tempRoot } from '../helpers/temp-root.ts';

const { at, put, root } = tempRoot('host-reads-');

describe('reads', () => {
  it('readUnder reads below the root() and refuses a symlink leading out of it', () => {
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
