import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { caseRunView } from '../../src/harness/case-view.ts';
import { runContractFiles } from '../../src/harness/suite.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/sub-agents', import.meta.url));

describe('caseRunView', () => {
  const full = runContractFiles([nodePath.join(FIXTURES, 'instruction-clarifier.contract.toml')]).cases;

  it('gives the pipeline\'s call of the sub-agent, its effect as diffs, and its model call', () => {
    const c = full.find((k) => k.name.startsWith('adds the model'))!;
    const v = caseRunView(c, 'instruction-clarifier.contract.toml')!;
    expect(v.title).toBe(`instruction-clarifier.contract.toml › ${c.name}`);
    expect(v.calls.map((k) => [k.agent, k.stage])).toEqual([['instruction-clarifier.aip', 'pre']]);
    expect(v.calls[0]!.diffs.prompt).toContain('+Clarified requirements:');
    expect(v.calls[0]!.ai).toEqual([0]);
    expect(v.ai.map((a) => a.agent)).toEqual(['instruction-clarifier.aip']);
    // the rows end in a section named for the case's stage
    expect(v.parts.at(-1)!.sections.at(-1)!.stage).toBe('pre');
  });

  it('is undefined for a case without a stage run (a verdict alone)', () => {
    const { result: _r, ...verdict } = full[0]!;
    expect(caseRunView(verdict)).toBeUndefined();
  });
});
