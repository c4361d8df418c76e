// kill -9 at seeded random points of `run-agent --write`: every file is old or new, never torn.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll as after, describe, expect, it } from 'vitest';
import { afterAll, arena } from './helpers.ts';
import { prng } from '../helpers/prng.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
// the child runs in a temp dir, where a bare 'tsx' would not resolve
const TSX = new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url).href;
const KILLS = Number(process.env.KILL9_RUNS ?? 6);
const SEED = Number(process.env.KILL9_SEED ?? Math.floor(Math.random() * 2 ** 31));
const FILES = 12;
const SIZE = 1 << 20;


const a = arena();
after(() => a.cleanup());
const names = Array.from({ length: FILES }, (_, i) => `data/f${i}.txt`);
const oldText = (i: number) => `old-${i}-`.padEnd(SIZE / 2, 'o');
const newText = (i: number) => `new-${i}-`.padEnd(SIZE, 'n');
a.write(
  'w.aip',
  afterAll(`for i = 0, ${FILES - 1} do aip.file.save("data/f" .. i .. ".txt", ("new-" .. i .. "-") .. string.rep("n", ${SIZE} - #("new-" .. i .. "-"))) end`),
);

function reset(): void {
  fs.rmSync(nodePath.join(a.ws, 'data'), { recursive: true, force: true });
  names.forEach((n, i) => a.write(n, oldText(i)));
}

/**
 * Runs the CLI. With `killAt` (0..1), kills it with SIGKILL that far into its write phase: the phase starts at the
 * first change in data/ and lasts `windowMs` (measured on a full run). Resolves to the write phase's length.
 */
function run(killAt?: number, windowMs = 0): Promise<{ windowMs: number; signal: NodeJS.Signals | null; code: number | null }> {
  const child = spawn(process.execPath, ['--import', TSX, BIN, 'run-agent', 'w.aip', '--write', '--budget', '1000000000000'], { cwd: a.ws, stdio: 'ignore' });
  let firstWrite: number | undefined;
  const watcher = fs.watch(nodePath.join(a.ws, 'data'), () => {
    if (firstWrite !== undefined) return;
    firstWrite = performance.now();
    if (killAt !== undefined) setTimeout(() => child.kill('SIGKILL'), killAt * windowMs);
  });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      watcher.close();
      resolve({ windowMs: firstWrite === undefined ? 0 : performance.now() - firstWrite, signal, code });
    }),
  );
}

describe(`kill -9 during --write (seed ${SEED}, replay with KILL9_SEED=${SEED})`, () => {
  it(`leaves every file old or new over ${KILLS} kills`, { timeout: 60_000 + KILLS * 15_000 }, async () => {
    console.log(`kill -9 series: seed ${SEED} (KILL9_SEED replays it), ${KILLS} kills`);
    reset();
    const full = await run();
    expect(full.code).toBe(0);
    names.forEach((n, i) => expect(fs.readFileSync(nodePath.join(a.ws, n), 'utf8') === newText(i)).toBe(true));
    const rand = prng(SEED);
    let torn = 0;
    let mixed = 0;
    let killed = 0;
    // the first full run may be the slowest (a cold start, a busy machine): a run that ends before its kill shows
    // how long the phase is now, and later kills aim within that
    let windowMs = full.windowMs;
    for (let k = 0; k < KILLS; k++) {
      reset();
      const r = await run(rand(), windowMs);
      if (r.signal === 'SIGKILL') killed++;
      else if (r.windowMs > 0) windowMs = Math.min(windowMs, r.windowMs);
      let olds = 0;
      let news = 0;
      names.forEach((n, i) => {
        const text = fs.readFileSync(nodePath.join(a.ws, n), 'utf8');
        if (text === oldText(i)) olds++;
        else if (text === newText(i)) news++;
        else torn++;
      });
      if (olds > 0 && news > 0) mixed++;
    }
    const strays = fs.readdirSync(nodePath.join(a.ws, 'data')).filter((n) => n.includes('coder-subagents-tmp')).length;
    console.log(`kill -9 series: write phase ${full.windowMs.toFixed(0)} ms, ${killed} killed, ${mixed} killed mid-write (some files new, some old), ${torn} torn files, ${strays} temp files left`);
    // a series in which no run was killed would prove nothing
    expect(killed).toBeGreaterThan(0);
    expect(torn).toBe(0);
    // a later --write takes over the dead run's lock, completes, and clears the temp files killed runs left
    reset();
    expect((await run()).code).toBe(0);
    expect(fs.readdirSync(nodePath.join(a.ws, 'data')).filter((n) => n.includes('coder-subagents-tmp'))).toEqual([]);
  });
});
