/**
 * A fresh project of a user who installed the packed package, as `npm pack` + `npm i -D ./coder-subagents-*.tgz`
 * make it. Installs come from the registry through npm's cache (`--prefer-offline`): after the repo's own
 * `npm ci` every version asked for here is already cached, so no test waits for the network.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(nodePath.join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'];

/** `npm pack` of this repository into `dir` (its prepack script builds dist/ first); the tarball's path. */
export function packRepo(dir: string): string {
  const out = execFileSync('npm', ['pack', '--pack-destination', dir, '--loglevel=error'], { cwd: REPO, encoding: 'utf8' });
  const name = out.trim().split('\n').pop()!;
  return nodePath.join(dir, name);
}

/** A temp project with the tarball installed as a devDependency, plus the given dev tools (versions of this repo's). */
export function consumerProject(tarball: string, tools: string[] = []): string {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'coder-subagents-consumer-'));
  writeFileSync(nodePath.join(dir, 'package.json'), JSON.stringify({ name: 'my-agents', private: true, type: 'module' }, null, 2));
  const specs = tools.map((t) => `${t}@${pkg.devDependencies[t]}`);
  execFileSync('npm', ['install', '-D', ...NPM_QUIET, tarball, ...specs], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  return dir;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in the consumer project, as a user types it (NO_COLOR for stable text). */
export function inProject(dir: string, cmd: string, args: string[]): Run {
  // a clean environment: nothing of the vitest run this may be called from
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|NODE_OPTIONS|CODER_SUBAGENTS)/.test(k)));
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
