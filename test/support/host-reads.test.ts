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
  it('tells confine the real path and size of the file it opened before reading it; confine refuses by throwing', () => {
    put('ws/a.txt', 'A');
    put('out/s.txt', 'S2');
    fs.symlinkSync(at('out', 's.txt'), at('ws', 'link.txt'));
    fs.symlinkSync(at('out'), at('ws', 'dir'));
    const seen: string[] = [];
    const confine = (real: string, size: number) => {
      seen.push(`${real} ${size}`);
      if (!isInside(real, at('ws'))) throw new HostFsError(`refused ${real}`);
    };
    expect(Buffer.from(readConfined(at('ws', 'a.txt'), confine)!).toString()).toBe('A');
    expect(() => readConfined(at('ws', 'link.txt'), confine)).toThrow(`refused ${at('out', 's.txt')}`);
    expect(() => readConfined(at('ws', 'dir', 's.txt'), confine)).toThrow(`refused ${at('out', 's.txt')}`);
    expect(seen).toEqual([`${at('ws', 'a.txt')} 1`, `${at('out', 's.txt')} 2`, `${at('out', 's.txt')} 2`]);
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

  it('reads a file whole: empty, and 5 MiB with every byte value, telling confine the sizes', () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 7);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 255;
    fs.writeFileSync(at('big.bin'), big);
    put('empty.txt', '');
    const sizes: number[] = [];
    const confine = (_real: string, size: number) => void sizes.push(size);
    expect(Buffer.from(readConfined(at('big.bin'), confine)!).equals(big)).toBe(true);
    expect(readConfined(at('empty.txt'), confine)).toEqual(new Uint8Array(0));
    expect(sizes).toEqual([big.length, 0]);
  });
});
