import { afterEach, describe, expect, it } from 'vitest';
import { injectWriteFault, writeOp } from '../../src/support/host-write-faults.ts';

afterEach(() => injectWriteFault(undefined));

describe('injectWriteFault', () => {
  it('fails the n-th write operation from now, once, with the code asked for', () => {
    injectWriteFault({ at: 2, code: 'EIO' });
    writeOp('first');
    expect(() => writeOp('second')).toThrow(expect.objectContaining({ code: 'EIO', message: 'EIO: injected fault, second' }));
    writeOp('third');
    // how many write operations ran since the last call
    expect(injectWriteFault(undefined)).toBe(3);
  });

  it('off, it only counts', () => {
    injectWriteFault(undefined);
    writeOp('a');
    writeOp('b');
    expect(injectWriteFault(undefined)).toBe(2);
  });
});
