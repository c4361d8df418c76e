import { describe, expect, it } from 'vitest';
import { formatSuite, summaryLine } from '../../../src/harness/reporters/human.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

// colours are off under test (no TTY), so the report is plain text
describe('the human report', () => {
  it('one line per case with its time (slow flagged), the failure and warnings under it, coverage, then the summary', () => {
    expect(formatSuite(sampleSuite(), { cwd: CWD }).split('\n')).toEqual([
      '✓ agents/a.contract.toml › keeps the prompt (pre) 12 ms',
      '✗ agents/a.contract.toml › drops <debug> & "noise" (post_task) 1500 ms (slow)',
      '    prompts differ',
      '      - x',
      '      + y',
      '- agents/b.contract.toml › later (pre) skipped',
      '    warning: unused key',
      '',
      'stages covered:',
      '  agents/a.aip: pre ×1, post_task ×1',
      'no contract file (not tested): agents/lonely.aip',
      '',
      '1 passed, 1 failed, 1 skipped, 1 case file not run (see the error above)',
    ]);
  });

  it('shows control characters of case names visibly', () => {
    const r = sampleSuite();
    r.cases = [{ ...r.cases[0], name: 'evil\u001b[2J' }];
    expect(formatSuite(r, { cwd: CWD }).split('\n')[0]).toBe('✓ agents/a.contract.toml › evil\\x1b[2J (pre) 12 ms');
  });

  it('summaryLine counts what --bail left out and the case files that did not run', () => {
    expect(summaryLine({ passed: 3, failed: 0, skipped: 0 })).toBe('3 passed, 0 failed');
    expect(summaryLine({ passed: 1, failed: 2, skipped: 0, notRun: 4, bailedAt: 2, errors: ['a', 'b'] })).toBe(
      '1 passed, 2 failed, 4 not run (stopped by --bail after 2 failures), 2 case files not run (see the errors above)',
    );
  });

  it('labels an event-form case by its event, in its line and in the coverage', () => {
    const r = sampleSuite();
    r.cases = [{ ...r.cases[0]!, stage: 'pre', event: 'plan::ready' }];
    r.coverage = [{ agent: `${CWD}/agents/a.aip`, stages: {}, events: { 'plan::ready': 1, end: 2 } }];
    const lines = formatSuite(r, { cwd: CWD }).split('\n');
    expect(lines[0]).toBe('✓ agents/a.contract.toml › keeps the prompt (plan::ready) 12 ms');
    expect(lines).toContain('  agents/a.aip: plan::ready ×1, end ×2');
  });
});
