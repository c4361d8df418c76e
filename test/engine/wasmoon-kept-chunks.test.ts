/**
 * The functions a pooled lua54 state keeps of the chunks it loaded (wasmoon-kept-chunks.ts): a later stage gets
 * what a new load would give it, and pays what a new load would cost.
 */
import { describe, expect, it } from 'vitest';
import type { LuaState, StateOptions, StateTemplate } from '../../src/engine/engine.ts';
import { loadEngine } from '../../src/engine/index.ts';
import { createLimits } from '../../src/engine/limits.ts';
import { KEPT_BYTES, KEPT_CHUNKS, KeptChunks, type KeptChunkLua } from '../../src/engine/wasmoon-kept-chunks.ts';

const lua54 = await loadEngine('lua54');

// a module that swaps its own _ENV and counts in a global: a load sees the globals, each stage a new count
const MODULES: Record<string, string> = {
  '/w/lib/swap.lua': [
    'local env = _ENV',
    'local first = env.tag == nil',
    'loads = (loads or 0) + 1',
    '_ENV = { tag = "swapped" }',
    'return { first = first, loads = env.loads }',
  ].join('\n'),
  '/w/lib/plain.lua': 'return { made = {} }',
};

function options(template: StateTemplate, over: Partial<StateOptions> = {}): StateOptions {
  return {
    budget: 1e9,
    budgetMessage: 'budget',
    moduleDirs: ['/w/lib'],
    readFile: (abs) => MODULES[abs],
    loadRoots: ['/w'],
    baseDir: '/w',
    print: () => {},
    displayPath: (p) => p,
    template,
    ...over,
  };
}
const run = (s: LuaState, code: string) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');
const template = (key: string): StateTemplate => ({ key, install: () => {} });

describe('kept chunks of a pooled lua54 state', () => {
  it('a later stage loads a module as new: its _ENV is the globals again, its globals are the stage\'s own', () => {
    const t = template('kept-swap');
    const first = lua54.createState(options(t));
    expect(run(first, 'return require("swap")')).toEqual({ first: true, loads: 1 });
    first.close();
    for (let i = 0; i < 3; i++) {
      const next = lua54.createState(options(t));
      expect(next).toBe(first);
      expect(run(next, 'return require("swap")')).toEqual({ first: true, loads: 1 });
      next.close();
    }
  });

  it('keeps nothing of setting a state up: the sandbox\'s functions work in every stage of every state', () => {
    for (let n = 0; n < 3; n++) {
      const t = template(`kept-sandbox-${n}`);
      for (let i = 0; i < 3; i++) {
        const s = lua54.createState(options(t));
        expect(run(s, 'return { string.rep("ab", 3, ","), string.rep(5, 3, 0), load("return select(\'#\', 1, 2)")() }')).toEqual(['ab,ab,ab', '50505', 2]);
        s.close();
      }
    }
  });

  it('two loads of one chunk in one stage give two functions, in every stage', () => {
    const t = template('kept-twice');
    for (let i = 0; i < 3; i++) {
      const s = lua54.createState(options(t));
      expect(run(s, 'local f, g = loadfile("/w/lib/plain.lua"), loadfile("/w/lib/plain.lua") return { f ~= g, f().made ~= g().made }')).toEqual([true, true]);
      s.close();
    }
  });

  it('a stage is charged the memory of a kept module it loads, as the stage that first loaded it was', () => {
    const t = template('kept-memory');
    const charged: number[] = [];
    for (let i = 0; i < 3; i++) {
      const limits = createLimits(1e9);
      const s = lua54.createState(options(t, { limits }));
      const before = limits.memoryUsed;
      run(s, 'package.loaded.swap = nil local m = require("swap") return true');
      charged.push(limits.memoryUsed - before);
      s.close();
      // a stage leaves nothing charged to its run tree once it closed
      expect(limits.memoryUsed).toBe(0);
    }
    expect(charged[0]).toBeGreaterThan(1000);
    for (const c of charged.slice(1)) expect(Math.abs(c - charged[0]!)).toBeLessThan(charged[0]! / 2);
  });

  it('a kept stage chunk lets go of its stage\'s scope: the next stage is not charged for what the last one was given', () => {
    const t = template('kept-scope');
    const big = Array.from({ length: 20000 }, (_, i) => `value ${i}`);
    for (let i = 0; i < 3; i++) {
      const s = lua54.createState(options(t));
      expect(s.runChunk('return #big', '/w/stage.lua', 1, { big }, 'serde')).toBe(20000);
      s.close();
    }
    const limits = createLimits(1e9);
    const next = lua54.createState(options(t, { limits }));
    // the chunk's _ENV held the scope, and the scope ~1 MiB of strings
    expect(limits.memoryUsed).toBeLessThan(512 * 1024);
    next.close();
  });
});

/** A fake Lua side: refs counted, pushes and charges recorded. */
function fakeLua() {
  const log: string[] = [];
  let next = 1;
  const lua: KeptChunkLua = {
    ref: () => next++,
    unref: (_L, ref) => void log.push(`unref ${ref}`),
    pushWithGlobals: (_L, ref) => void log.push(`push ${ref}`),
    release: (_L, ref) => void log.push(`release ${ref}`),
    charge: (_L, n) => void log.push(`charge ${n}`),
  };
  return { lua, log };
}

describe('KeptChunks', () => {
  it('keeps nothing while the state is set up (before its first stage)', () => {
    const { lua, log } = fakeLua();
    const kept = new KeptChunks<object>(lua);
    const key = {};
    kept.keep(0, key, 300, 0);
    expect(kept.bytes).toBe(0);
    kept.newStage();
    expect(kept.take(0, key, createLimits(1e9), false)).toBe(false);
    expect(log).toEqual([]);
  });

  it('hands a kept function out once a stage, charging its bytes and instructions; not past the memory cap', () => {
    const { lua, log } = fakeLua();
    const kept = new KeptChunks<object>(lua);
    kept.newStage();
    const key = {};
    const limits = createLimits(1e9, 1000);
    kept.keep(0, key, 300, 7);
    expect(kept.take(0, key, limits, true)).toBe(false); // the stage that loaded it has it
    kept.newStage();
    expect(kept.idleBytes).toBe(300);
    expect(kept.take(0, key, limits, true)).toBe(true);
    expect(limits.memoryUsed).toBe(300);
    expect(kept.idleBytes).toBe(0);
    expect(kept.take(0, key, limits, true)).toBe(false);
    kept.newStage();
    limits.memoryUsed = 800;
    expect(kept.take(0, key, limits, true)).toBe(false); // a load would meet the cap: a real load meets it
    expect(log).toEqual(['push 1', 'charge 7']);
    kept.endStage(0);
    expect(log).toEqual(['push 1', 'charge 7']); // this stage took none
    kept.newStage();
    limits.memoryUsed = 0;
    kept.take(0, key, limits, true);
    kept.endStage(0);
    expect(log.slice(2)).toEqual(['push 1', 'charge 7', 'release 1']);
  });

  it(`keeps ${KEPT_CHUNKS} functions and ${KEPT_BYTES / 1024 / 1024} MiB at most, dropping the least taken, never one this stage holds`, () => {
    const { lua, log } = fakeLua();
    const kept = new KeptChunks<object>(lua);
    kept.newStage();
    const keys = Array.from({ length: KEPT_CHUNKS + 2 }, () => ({}));
    const limits = createLimits(1e9);
    for (const k of keys.slice(0, KEPT_CHUNKS)) kept.keep(0, k, 10, 0);
    // all taken by this stage: nothing can make room
    kept.keep(0, keys[KEPT_CHUNKS]!, 10, 0);
    expect(log).toEqual([]);
    kept.newStage();
    // every one but the second taken once more: the second goes, though it is not the oldest
    for (const [i, k] of keys.slice(0, KEPT_CHUNKS).entries()) if (i !== 1) kept.take(0, k, limits, false);
    log.length = 0;
    kept.keep(0, keys[KEPT_CHUNKS + 1]!, 10, 0);
    expect(log).toEqual(['unref 2']);
    expect(kept.bytes).toBe(KEPT_CHUNKS * 10);
    // too big to keep beside the others (an eighth of the bytes): not kept
    kept.keep(0, {}, KEPT_BYTES / 8 + 1, 0);
    expect(kept.bytes).toBe(KEPT_CHUNKS * 10);
  });

  it('agents loaded in turn, more than it keeps: the ones kept first keep being taken', () => {
    const { lua } = fakeLua();
    const kept = new KeptChunks<object>(lua);
    kept.newStage();
    const keys = Array.from({ length: KEPT_CHUNKS + 20 }, () => ({}));
    const limits = createLimits(1e9);
    let takes = 0;
    for (let round = 0; round < 3; round++) {
      for (const k of keys) {
        kept.newStage();
        if (kept.take(0, k, limits, false)) takes++;
        else kept.keep(0, k, 10, 0);
      }
    }
    // a least-recently-taken rule would take none: each load would push out the one loaded next
    expect(takes).toBeGreaterThan(KEPT_CHUNKS);
  });
});
