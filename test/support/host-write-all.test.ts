import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { writeAllOrNothing } from '../../src/support/host-write-all.ts';
import { injectWriteFault } from '../../src/support/host-write-faults.ts';
import { tempRoot } from '../helpers/temp-root.ts';

const { at, put, root } = tempRoot('host-write-all-');
afterEach(() => injectWriteFault(undefined));

describe('writeAllOrNothing', () => {
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
    expect(() => writeAllOrNothing(root(), changes)).toThrow(/no space left on the device/);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('A');
    expect(fs.readFileSync(at('b.txt'), 'utf8')).toBe('B');
    expect(fs.existsSync(at('new'))).toBe(false);
    expect(fs.readdirSync(root()).sort()).toEqual(['a.txt', 'b.txt']);
    injectWriteFault(undefined);
    writeAllOrNothing(root(), changes);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('A2');
    expect(fs.existsSync(at('b.txt'))).toBe(false);
    expect(fs.readFileSync(at('new', 'c.txt'), 'utf8')).toBe('C');
  });
});
