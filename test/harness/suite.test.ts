// runContractFiles with verdictsOnly: each finished case keeps its verdict and nothing of its stage run, so a long
// suite holds the same memory per case whatever the case produced; without it, the stage run stays (the library API).
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContractFiles } from '../../src/harness/suite.ts';
import type { CaseResult } from '../../src/harness/run-case.ts';

let dir: string;
let file: string;
beforeAll(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'suite-'));
  fs.writeFileSync(
    nodePath.join(dir, 'big.aip'),
    '# Output\n\n```lua\nif input.agent_config.fail then return { success = false, error_msg = "said no" } end\n' +
      'return { success = true, prompt = string.rep("x", 100000) }\n```\n',
  );
  const c = (name: string, config: string, expect: string) => `[[case]]\nname = "${name}"\nstage = "pre"\nprompt = "Go"\nconfig = ${config}\n[case.expect]\n${expect}\n`;
  file = nodePath.join(dir, 'big.contract.toml');
  fs.writeFileSync(file, 'agent = "big.aip"\n\n' + c('returns a big value', '{ fail = false }', 'unchanged = true') + c('fails', '{ fail = true }', 'unchanged = true'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const verdict = (c: CaseResult) => [c.name, c.status, c.message?.split('\n')[0]];

describe('runContractFiles, verdictsOnly', () => {
  it('keeps the verdicts and drops each stage run, in the result and in what onCaseDone is told', () => {
    const told: CaseResult[] = [];
    const full = runContractFiles([file], { budget: 1e9 });
    const slim = runContractFiles([file], { budget: 1e9, verdictsOnly: true, onCaseDone: (c) => told.push(c) });
    expect(full.errors).toEqual([]);
    expect(full.cases.map((c) => (c.result?.rawResponse as { prompt?: string }).prompt?.length)).toEqual([100000, undefined]);
    expect(slim.cases.map(verdict)).toEqual(full.cases.map(verdict));
    expect(slim.cases[1].message).toContain('said no');
    expect([...slim.cases, ...slim.files[0].cases, ...told].map((c) => 'result' in c)).toEqual(Array(6).fill(false));
    expect([slim.passed, slim.failed]).toEqual([1, 1]);
  });
});

describe('runContractFiles, runViews', () => {
  it('keeps of each verdict its run\'s report data instead of the stage run: the big value capped', () => {
    const slim = runContractFiles([file], { budget: 1e9, verdictsOnly: true, runViews: true });
    expect(slim.cases.map((c) => ['result' in c, c.run?.calls.map((k) => k.agent)])).toEqual([
      [false, ['big.aip']],
      [false, ['big.aip']],
    ]);
    // the 100,000-character value is cut in what the report keeps
    expect(slim.cases[0].run!.calls[0]!.output.length).toBeLessThan(70_000);
    expect(runContractFiles([file], { budget: 1e9, verdictsOnly: true }).cases.map((c) => 'run' in c)).toEqual([false, false]);
  });
});
