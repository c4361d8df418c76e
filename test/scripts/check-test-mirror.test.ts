import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JS script without types
import { checkTestMirror, mirroredTest } from '../../scripts/check-test-mirror.mjs';

type Result = { missing: string[]; problems: string[] };
const check = checkTestMirror as (root: string, exempt?: Record<string, string>) => Result;
const SCRIPT = nodePath.resolve('scripts/check-test-mirror.mjs');
let root: string | undefined;

function tree(files: string[]): string {
  root = mkdtempSync(nodePath.join(os.tmpdir(), 'mirror-'));
  for (const rel of files) {
    mkdirSync(nodePath.dirname(nodePath.join(root, rel)), { recursive: true });
    writeFileSync(nodePath.join(root, rel), 'export {};\n');
  }
  return root;
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('check-test-mirror', () => {
  it('maps src/a/b.ts to test/a/b.test.ts', () => {
    expect(mirroredTest('src/aip/support/paths.ts')).toBe('test/aip/support/paths.test.ts');
  });

  it('lists the source files without a mirrored test; a topic test elsewhere does not count', () => {
    const r = check(tree(['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts', 'src/a/t.d.ts', 'test/a/x.test.ts', 'test/topic/y.test.ts']), {});
    expect(r).toEqual({ missing: ['src/a/y.ts', 'src/b/z.ts'], problems: [] });
  });

  it('skips exempted files, and flags exemptions that are stale or give no known reason', () => {
    const dir = tree(['src/types.ts', 'src/index.ts', 'src/odd.ts', 'test/index.test.ts']);
    const r = check(dir, { 'src/types.ts': 'types', 'src/index.ts': 're-exports', 'src/gone.ts': 'entry', 'src/odd.ts': 'small' });
    expect(r.missing).toEqual([]);
    expect(r.problems).toEqual([
      'exemption src/index.ts: it has a test, test/index.test.ts (remove it from the list)',
      'exemption src/gone.ts: no such source file (remove it from the list)',
      "exemption src/odd.ts: reason 'small' is not one of types, re-exports, entry",
    ]);
  });

  it('as a command, exits 1 and names each missing test with a count per folder', () => {
    const dir = tree(['src/a/x.ts', 'src/a/y.ts', 'test/a/x.test.ts']);
    let out = '';
    let status = 0;
    try {
      execFileSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      const err = e as { status: number; stderr: string };
      status = err.status;
      out = err.stderr;
    }
    expect(status).toBe(1);
    expect(out).toContain('src/a/y.ts: no test/a/y.test.ts');
    expect(out).toContain('1 source file(s) without a mirrored test (src/a 1)');
  });
});
