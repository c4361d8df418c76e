import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
export const AGENTS = nodePath.join(FIXTURES, 'agents');

const made: string[] = [];

/** A fresh temporary directory, removed after the test; `withAgents` copies the fixture agents into `agents/`. */
export function tmpDir(withAgents = false): string {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'coder-subagents-harness-'));
  made.push(dir);
  if (withAgents) cpSync(AGENTS, nodePath.join(dir, 'agents'), { recursive: true });
  return dir;
}

export function write(dir: string, rel: string, text: string): string {
  const abs = nodePath.join(dir, rel);
  mkdirSync(nodePath.dirname(abs), { recursive: true });
  writeFileSync(abs, text);
  return abs;
}

afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
