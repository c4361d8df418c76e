import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckOptions, CheckResult } from '../../src/check/index.ts';

// The command's formatting and exit codes, with the checker itself replaced by a stub.
const stub = vi.hoisted(() => ({
  calls: [] as unknown[],
  result: undefined as unknown,
  error: undefined as Error | undefined,
  CheckPathError: class CheckPathError extends Error {},
}));
vi.mock('../../src/check/index.ts', () => ({
  CheckPathError: stub.CheckPathError,
  IGNORE_FILE: '.checkignore',
  runCheckDetailed: async (opts: CheckOptions): Promise<CheckResult> => {
    stub.calls.push(opts);
    if (stub.error) throw stub.error;
    return stub.result as CheckResult;
  },
}));

const { main } = await import('../../src/cli/main.ts');

let out: string;
let err: string;
beforeEach(() => {
  out = '';
  err = '';
  stub.calls = [];
  stub.error = undefined;
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    out += String(s);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    err += String(s);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const run = (...args: string[]) => main(['node', 'coder-subagents', 'check', ...args]);

const FINDINGS: CheckResult = {
  findings: [
    { file: 'pack/a.aip', line: 3, column: 8, rule: 'undefined-global', message: "undefined global 'nope'" },
    { file: 'pack/a.aip', line: 4, column: 1, rule: 'int-too-large', message: 'too big' },
    { file: 'lua/x.lua', line: 1, column: 1, rule: 'syntax', message: "'=' expected near 'x'" },
  ],
  files: ['pack/a.aip', 'lua/x.lua', 'lua/y.lua'],
  notes: ['pack freshness not checked: x'],
};

describe('coder-subagents check', () => {
  it('prints one line per finding and a summary, exit 1', async () => {
    stub.result = FINDINGS;
    expect(await run('pack', '--min-aipack-version', '0.8.14')).toBe(1);
    expect(out).toBe(
      [
        "pack/a.aip:3:8: undefined-global: undefined global 'nope'",
        'pack/a.aip:4:1: int-too-large: too big',
        "lua/x.lua:1:1: syntax: '=' expected near 'x'",
        '3 findings in 2 files',
        '',
      ].join('\n'),
    );
    expect(err).toBe('note: pack freshness not checked: x\n');
    expect(stub.calls).toEqual([{ root: process.cwd(), paths: ['pack'], minAipackVersion: '0.8.14' }]);
  });

  it('passes with exit 0 and the default minimum version 0.8.15', async () => {
    stub.result = { findings: [], files: ['a', 'b', 'c'], notes: [] };
    expect(await run()).toBe(0);
    expect(out).toBe('check passed (3 files)\n');
    expect(stub.calls).toEqual([{ root: process.cwd(), paths: [], minAipackVersion: '0.8.15' }]);
  });

  it('prints warnings, which alone do not fail the check', async () => {
    const warning = { file: 'a.aip', line: 9, column: 10, rule: 'dropped-params', message: 'params dropped', severity: 'warning' } as const;
    stub.result = { findings: [warning], files: ['a.aip'], notes: [] };
    expect(await run()).toBe(0);
    expect(out).toBe('a.aip:9:10: warning dropped-params: params dropped\ncheck passed (1 file) with 1 warning\n');
    out = '';
    stub.result = { findings: [FINDINGS.findings[0], warning], files: ['a.aip', 'pack/a.aip'], notes: [] };
    expect(await run()).toBe(1);
    expect(out.split('\n').at(-2)).toBe('1 finding and 1 warning in 2 files');
  });

  it('--json prints the findings as JSON', async () => {
    stub.result = FINDINGS;
    expect(await run('--json')).toBe(1);
    const json = JSON.parse(out) as { ok: boolean; files: number; findings: unknown[] };
    expect(json.ok).toBe(false);
    expect(json.files).toBe(3);
    expect(json.findings).toEqual(FINDINGS.findings);
  });

  it('rejects a bad version and a missing path as usage errors (exit 2)', async () => {
    stub.result = FINDINGS;
    expect(await run('--min-aipack-version', '0.8')).toBe(2);
    expect(err).toContain("--min-aipack-version: '0.8' is not a version like 0.8.15");
    expect(stub.calls).toEqual([]);
    stub.error = new stub.CheckPathError('no such file or directory: nowhere');
    expect(await run('nowhere')).toBe(2);
    expect(err).toContain('error: no such file or directory: nowhere');
  });
});
