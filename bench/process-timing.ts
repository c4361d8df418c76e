/**
 * Whole-process measurement for the CLI benches: a child's CPU time from the shell's `times` (getrusage of reaped
 * children, 1 ms resolution), its wall time, and its peak RSS from GNU time's %M when that is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

export interface Sample {
  cpuMs: number;
  wallMs: number;
  rssMb?: number;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

export const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
export const ms = (v: number, d = 2) => `${v.toFixed(d)} ms`;

/** Runs `argv` as a child of a shell that reports its children's CPU time; checks its output with `expect`. */
export function timed(argv: string[], cwd: string, expect: (stdout: string) => boolean): Sample {
  const rssFile = nodePath.join(os.tmpdir(), `bench-cli-rss-${process.pid}`);
  const cmd = (GNU_TIME ? [GNU_TIME, '-f', '%M', '-o', rssFile, ...argv] : argv).map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = nodePath.join(os.tmpdir(), `bench-cli-out-${process.pid}`);
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `${cmd} >'${out}' 2>&1; echo "exit $?"; times`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CODER_SUBAGENTS_DIST: '1' },
  });
  const wallMs = performance.now() - t0;
  const stdout = readFileSync(out, 'utf8');
  const lines = r.stdout.trim().split('\n');
  if (!expect(stdout)) throw new Error(`${argv.join(' ')}: unexpected output (${lines[0]}):\n${stdout.slice(-800)}`);
  // `times`: the shell's own user/sys, then its children's
  const [user, sys] = (lines[2] as string).trim().split(/\s+/).map((t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t) as RegExpExecArray;
    return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  }) as [number, number];
  const rssMb = GNU_TIME ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) / 1024 : undefined;
  return { cpuMs: user + sys, wallMs, rssMb };
}
