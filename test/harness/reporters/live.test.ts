import { describe, expect, it } from 'vitest';
import { liveReport, wantsProgress } from '../../../src/harness/reporters/live.ts';
import { formatSuite } from '../../../src/harness/reporters/human.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

const ERASE = '\r\x1b[2K';

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, out: { isTTY, write: (s: string) => writes.push(s) } };
}

describe('the live report (cases as they end, a progress line on a terminal)', () => {
  it('prints each case as it ends; on a terminal a progress line under them, erased before the next case and at the end', () => {
    const { writes, out } = sink(true);
    let t = 0;
    const live = liveReport({ out, env: {}, cwd: CWD, total: 3, now: () => t });
    const [a, b] = sampleSuite().cases;
    live.onCase(a!);
    t = 2400;
    live.onCase(b!);
    live.end();
    // colours are off under test, so the text is plain
    expect(writes).toEqual([
      '✓ agents/a.contract.toml › keeps the prompt (pre) 12 ms\n',
      '▸ 1/3 cases · 0 s',
      `${ERASE}✗ agents/a.contract.toml › drops <debug> & "noise" (post_task) 1500 ms (slow)\n    prompts differ\n      - x\n      + y\n`,
      '▸ 2/3 cases · 1 failed · 2 s',
      ERASE,
    ]);
  });

  it('draws no progress line when the output is not a terminal, or with NO_COLOR or CI', () => {
    expect(wantsProgress({ isTTY: true }, {})).toBe(true);
    expect(wantsProgress({ isTTY: false }, {})).toBe(false);
    expect(wantsProgress({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsProgress({ isTTY: true }, { CI: 'true' })).toBe(false);
    const { writes, out } = sink(false);
    const live = liveReport({ out, env: {}, cwd: CWD });
    for (const c of sampleSuite().cases) live.onCase(c);
    live.end();
    expect(writes.join('')).not.toContain('▸');
    expect(writes).toHaveLength(3);
  });

  it('streams a 10,000-case suite as it goes: one write per case, the line of case k out before case k + 1 ends', () => {
    const { writes, out } = sink(false);
    const live = liveReport({ out, env: {}, cwd: CWD });
    const [a] = sampleSuite().cases;
    let late = 0;
    for (let i = 0; i < 10_000; i++) {
      live.onCase({ ...a!, index: i + 1, name: `case ${i + 1}` });
      if (writes.length !== i + 1) late++;
    }
    expect(late).toBe(0);
    expect(writes[9_999]).toContain('case 10000');
  });

  it('the summary after the streamed cases leaves the case lines out', () => {
    const text = formatSuite(sampleSuite(), { cwd: CWD, cases: false });
    expect(text.split('\n')[0]).toBe('');
    expect(text).not.toContain('keeps the prompt');
    expect(text).toContain('1 passed, 1 failed, 1 skipped');
  });
});
