/**
 * The pool of states given back (state-pool.ts), over stand-in states: a state is kept only when it was put back,
 * taken again only for its own template, and the least recently given template makes room when the pool is full.
 */
import { describe, expect, it } from 'vitest';
import type { StateOptions } from '../../src/engine/engine.ts';
import { StatePool } from '../../src/engine/state-pool.ts';

class Fake {
  takenFor: StateOptions | undefined;
  constructor(
    readonly templateKey: string,
    private readonly restores = true,
  ) {}
  takeFor(options: StateOptions): void {
    this.takenFor = options;
  }
  restorePristine(): boolean {
    return this.restores;
  }
}

const optionsOf = (key?: string) => ({ template: key === undefined ? undefined : { key, install: () => {} } }) as StateOptions;

describe('the state pool', () => {
  it('gives a kept state back for its own template only, taken for the new options', () => {
    const pool = new StatePool<Fake>(4);
    const a = new Fake('a');
    expect(pool.give(a)).toBe(true);
    expect(pool.take(optionsOf('b'))).toBeUndefined();
    expect(pool.take(optionsOf())).toBeUndefined();
    const options = optionsOf('a');
    expect(pool.take(options)).toBe(a);
    expect(a.takenFor).toBe(options);
    expect(pool.take(optionsOf('a'))).toBeUndefined();
  });

  it('keeps no state that could not be put back', () => {
    const pool = new StatePool<Fake>(4);
    expect(pool.give(new Fake('', false))).toBe(false);
    expect(pool.take(optionsOf())).toBeUndefined();
  });

  it('takes the last given state of a template first', () => {
    const pool = new StatePool<Fake>(4);
    const [first, second] = [new Fake(''), new Fake('')];
    pool.give(first);
    pool.give(second);
    expect(pool.take(optionsOf())).toBe(second);
    expect(pool.take(optionsOf())).toBe(first);
  });

  it('when full, drops the oldest state of the least recently given template, and hands it to be closed', () => {
    const dropped: Fake[] = [];
    const pool = new StatePool<Fake>(3, (s) => dropped.push(s));
    const [a1, b1, a2, c] = [new Fake('a'), new Fake('b'), new Fake('a'), new Fake('c')];
    pool.give(a1);
    pool.give(b1);
    // 'a' given again: 'b' is now the template given least recently
    pool.give(a2);
    expect(dropped).toEqual([]);
    pool.give(c);
    expect(dropped).toEqual([b1]);
    expect(pool.take(optionsOf('b'))).toBeUndefined();
    expect(pool.take(optionsOf('a'))).toBe(a2);
    expect(pool.take(optionsOf('a'))).toBe(a1);
    expect(pool.take(optionsOf('c'))).toBe(c);
  });
});
