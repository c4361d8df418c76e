/**
 * A throw-away workspace on the real disk for the `aip.file.*` unit tests: a few source files, the folders
 * AIPack excludes by default, and a custom pack; `diskState()` reads it back to prove nothing was written.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { makeStageEnv, type TestStageEnv } from './stage-env.ts';

export type HostFns = Record<string, (...args: any[]) => any>;

export interface FileWorkspace {
  /** temp dir holding the workspace (`ws`), for paths outside it */
  root: string;
  ws: string;
  env: TestStageEnv;
  put(rel: string, content: string): void;
  /** Every file under the workspace with its content, read from the real disk. */
  diskState(): Record<string, string>;
}

/** Registers beforeEach / afterEach hooks; the returned object holds the current test's workspace. */
export function useFileWorkspace(): FileWorkspace {
  const w = {
    root: '',
    ws: '',
    env: undefined as unknown as TestStageEnv,
    put(rel: string, content: string): void {
      const abs = nodePath.join(w.ws, rel);
      fs.mkdirSync(nodePath.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
    },
    diskState(): Record<string, string> {
      const out: Record<string, string> = {};
      const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const abs = nodePath.join(d, e.name);
          if (e.isDirectory()) walk(abs);
          else out[nodePath.relative(w.ws, abs)] = fs.readFileSync(abs, 'utf8');
        }
      };
      walk(w.ws);
      return out;
    },
  };
  beforeEach(() => {
    w.root = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'aip-file-'));
    w.ws = nodePath.join(w.root, 'ws');
    w.put('README.md', '# Readme\n');
    w.put('src/main.ts', 'console.log(1);\n');
    w.put('src/lib/util.ts', 'export const x = 1;\n');
    w.put('src/lib/.DS_Store', 'junk');
    w.put('src/lib/util.ts.swp', 'junk');
    w.put('node_modules/dep/index.ts', 'dep');
    w.put('target/debug/out.ts', 'out');
    w.put('.git/config', 'git');
    w.put('.aipack/config.toml', '[options]');
    w.put('.aipack/pack/custom/demo/proof/main.aip', '# Data');
    w.put('.aipack/pack/custom/demo/proof/doc/guide.md', 'guide');
    w.env = makeStageEnv(w.ws);
  });
  afterEach(() => {
    fs.rmSync(w.root, { recursive: true, force: true });
  });
  return w;
}
