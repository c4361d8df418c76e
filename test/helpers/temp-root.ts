/** A fresh real temp directory per test (removed after it), with helpers to name and write files in it. */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export function tempRoot(prefix: string) {
  let root = '';
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const at = (...p: string[]) => nodePath.join(root, ...p);
  return {
    root: () => root,
    at,
    put(rel: string, text: string) {
      fs.mkdirSync(nodePath.dirname(at(rel)), { recursive: true });
      fs.writeFileSync(at(rel), text);
    },
  };
}
