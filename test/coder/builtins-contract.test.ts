/**
 * The contract files of the pack's built-in sub-agents (fixtures/builtins): every case passes, on the engine of
 * the vitest project. The case counts keep a deleted case from passing unnoticed.
 */
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runContractFile } from '../../src/harness/run-case.ts';
import { REPO_ROOT } from '../../src/runtime/packs.ts';

const FILES = [
  ['code-map.contract.toml', 9],
  ['auto-context.contract.toml', 10],
  ['auto-fix.contract.toml', 6],
] as const;

describe('built-in sub-agents: contract files', () => {
  for (const [file, count] of FILES) {
    it(`${file} passes`, () => {
      const r = runContractFile(nodePath.join(REPO_ROOT, 'fixtures', 'builtins', file));
      expect(r.cases.map((c) => [c.name, c.status, c.message ?? ''])).toEqual(r.cases.map((c) => [c.name, 'passed', '']));
      expect(r.cases.length).toBe(count);
    });
  }
});
