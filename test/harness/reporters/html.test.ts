import { describe, expect, it } from 'vitest';
import { suiteHtml } from '../../../src/harness/reporters/html.ts';
import type { SuiteView } from '../../../src/report/suite-view.ts';
import type { RunView } from '../../../src/report/run-view.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';
import { manyCaseSuite } from '../../helpers/report-suite.ts';

const block = (page: string, id: string): unknown => {
  const m = new RegExp(`<script type="application/json" id="${id}">([\\s\\S]*?)</script>`).exec(page);
  return m ? JSON.parse(m[1]!) : undefined;
};

describe('the HTML report of a suite', () => {
  it('indexes every case with its file, agent, status, time, slow mark, message and warnings', () => {
    const page = suiteHtml(sampleSuite(), { cwd: CWD, slowMs: 1000 });
    const { kind, suite } = block(page, 'report-data') as { kind: string; suite: SuiteView };
    expect(kind).toBe('suite');
    expect(suite.cases.map((c) => [c.id, c.file, c.agent, c.name, c.status, c.ms, c.slow, c.run])).toEqual([
      [0, 'agents/a.contract.toml', 'agents/a.aip', 'keeps the prompt', 'passed', 12.4, false, false],
      [1, 'agents/a.contract.toml', 'agents/a.aip', 'drops <debug> & "noise"', 'failed', 1500, true, false],
      [2, 'agents/b.contract.toml', 'agents/b.aip', 'later', 'skipped', 0, false, false],
    ]);
    expect(suite.cases[1]!.message).toBe('prompts differ\n  - x\n  + y');
    expect(suite.cases[2]!.warnings).toEqual(['unused key']);
    expect(suite).toMatchObject({ passed: 1, failed: 1, skipped: 1, errors: ["agents/c.contract.toml: case #1: unknown key 'x'"], agentsWithoutContract: ['agents/lonely.aip'], slowMs: 1000 });
    // markup in a name stays inside the JSON block
    expect(page).not.toContain('drops <debug>');
  });

  it('puts each case run in its own block, with its model calls\' token estimates', () => {
    const r = manyCaseSuite(3);
    const page = suiteHtml(r, { cwd: '/suite' });
    const run = block(page, 'run-0') as RunView;
    expect(run.title).toMatch(/^agents\/group-0\.contract\.toml › case 0 /);
    expect(run.ai.length).toBeGreaterThan(0);
    expect(run.ai[0]!.promptTokens).toBeGreaterThan(0);
    expect(run.totals?.at(-1)?.agent).toBe('*');
  });

  it('keeps a 100-case report under 1 MB', () => {
    const bytes = Buffer.byteLength(suiteHtml(manyCaseSuite(100), { cwd: '/suite' }));
    console.log(`html report of 100 cases: ${bytes} bytes`);
    expect(bytes).toBeLessThan(1024 * 1024);
  });
});
