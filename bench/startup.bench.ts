/**
 * CLI start-up as a user meets it: the packed package installed in a fresh project, then
 * `node node_modules/.bin/coder-subagents ...` timed wall-clock (targets: --version < 300 ms, `test` of one case
 * < 600 ms on the 2-core machine). Not a test: figures depend on the machine. Run with `npm run bench:startup`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { consumerProject, packRepo } from '../test/helpers/consumer.ts';

const RUNS = Number(process.env.RUNS ?? 10);
const scratch = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-startup-'));
const project = consumerProject(packRepo(scratch));
const bin = nodePath.join(project, 'node_modules', '.bin', 'coder-subagents');

/** Wall time of `node <bin> args` (`node args` when bare). */
function wall(args: string[], bare = false): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, bare ? args : [bin, ...args], { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function report(label: string, args: string[], target?: number, bare = false): void {
  wall(args, bare); // the first run fills the OS file cache
  const s = Array.from({ length: RUNS }, () => wall(args, bare)).sort((a, b) => a - b);
  const med = s[Math.floor(s.length / 2)];
  const verdict = target === undefined ? '' : med < target ? `  (target < ${target} ms: met)` : `  (target < ${target} ms: MISSED)`;
  console.log(`${label.padEnd(34)} median ${med.toFixed(0).padStart(5)} ms   min ${s[0].toFixed(0).padStart(5)}   max ${s[s.length - 1].toFixed(0).padStart(5)}${verdict}`);
}

try {
  wall(['init', 'prompt-refiner', '--dir', 'agents']);
  console.log(`start-up of the installed package (${RUNS} runs each, node ${process.version}, ${os.cpus().length} cores)`);
  report('node -e 0 (the floor)', ['-e', '0'], undefined, true);
  report('coder-subagents --version', ['--version'], 300);
  report('coder-subagents --help', ['--help']);
  report('coder-subagents test (one case)', ['test', 'agents', '-t', 'adds a focus'], 600);
  report('coder-subagents test (init: 3 cases)', ['test', 'agents']);
  report('coder-subagents check agents', ['check', 'agents']);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
