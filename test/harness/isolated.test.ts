// `coder-subagents test` runs cases in a worker under a deadline per case: a case that passes it is reported
// failed with the timeout, and every other case keeps its own result (those before it and those after it).
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countCases, runContractFilesIsolated, SPLIT_FROM_CASES, SPLIT_FROM_CORES, suiteWorkersFor } from '../../src/harness/isolated.ts';
import type { SuiteOptions } from '../../src/harness/suite.ts';
import { discover } from '../../src/harness/discover.ts';
import type { SuiteResult } from '../../src/harness/suite-result.ts';
import { tmpDir, write } from './helpers.ts';

// each test starts worker threads that load the runner: on a busy machine that alone takes seconds, and no test
// here is about speed, so the test's own limit is far from it
vi.setConfig({ testTimeout: 180_000 });

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'isolated-'));
  fs.writeFileSync(
    nodePath.join(dir, 'maybe-hangs.aip'),
    '# Output\n\n```lua\nlocal cfg = input.agent_config or {}\nif cfg.mode == "hang" then while true do end end\n' +
      'if cfg.mode == "fail" then return { success = false, error_msg = "said no" } end\n```\n',
  );
  const c = (name: string, config: string, expect: string) => `[[case]]\nname = "${name}"\nstage = "pre"\nprompt = "Go"\nconfig = ${config}\n[case.expect]\n${expect}\n`;
  fs.writeFileSync(
    nodePath.join(dir, 'maybe-hangs.contract.toml'),
    'agent = "maybe-hangs.aip"\n\n' +
      c('passes first', '{ mode = "pass" }', 'unchanged = true') +
      c('hangs', '{ mode = "hang" }', 'unchanged = true') +
      c('fails after', '{ mode = "fail" }', 'unchanged = true') +
      c('passes after', '{ mode = "pass" }', 'unchanged = true'),
  );
  fs.writeFileSync(nodePath.join(dir, 'second.contract.toml'), 'agent = "maybe-hangs.aip"\n\n' + c('another file', '{ mode = "pass" }', 'unchanged = true'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the deadline suite with the deadline's clock in the test's hand: the timers of the main thread (where the
 * deadline is kept) are fake and move only while the case that blocks forever is the only one running, so the
 * cases that end are never stopped, however slow the machine, and the one that blocks always is.
 */
async function runWithHang(workers: number): Promise<SuiteResult> {
  const files = ['maybe-hangs.contract.toml', 'second.contract.toml'].map((f) => nodePath.join(dir, f));
  const realSetTimeout = globalThis.setTimeout;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const running = new Set<string>();
  let hangEnded = false;
  // while the hang is alone, move the clock (again a moment later: its deadline may be armed after its start)
  const nudge = () => {
    if (hangEnded || running.size !== 1 || !running.has('hangs')) return;
    vi.advanceTimersByTime(1000);
    realSetTimeout(nudge, 20);
  };
  try {
    return await runContractFilesIsolated(files, { budget: 1e15 }, {
      timeoutMs: 2000,
      workers,
      onCaseStart: (c) => {
        running.add(c.name);
        nudge();
      },
      onCaseEnd: (c) => {
        running.delete(c.name);
        if (c.name === 'hangs') hangEnded = true;
        nudge();
      },
    });
  } finally {
    vi.useRealTimers();
  }
}

describe('a case that passes its deadline', () => {
  it('fails with the timeout as its cause; the cases before and after it keep their results', async () => {
    const r = await runWithHang(1);
    expect(r.cases.map((c) => [c.name, c.status]), JSON.stringify(r.cases.map((c) => c.message))).toEqual([
      ['passes first', 'passed'],
      ['hangs', 'failed'],
      ['fails after', 'failed'],
      ['passes after', 'passed'],
      ['another file', 'passed'],
    ]);
    expect(r.cases[1]?.message).toMatch(/^timed out after 2 s \(the case was stopped; raise --timeout if it needs longer\)$/);
    expect(r.cases[2]?.message).toMatch(/said no/);
    expect([r.passed, r.failed, r.skipped]).toEqual([3, 2, 0]);
    expect(r.files.map((f) => f.cases.length)).toEqual([4, 1]);
    expect(r.cases[0]?.result?.trace.events.length).toBeGreaterThan(0);
  });
});

/** What a report shows of a run: everything but the times and the stage runs. */
function shown(r: SuiteResult) {
  const { cases, files, ...rest } = r;
  const verdict = (c: SuiteResult['cases'][number]) => [c.file, c.index, c.name, c.stage, c.status, c.message, c.warnings];
  return { ...rest, cases: cases.map(verdict), files: files.map((f) => ({ ...f, cases: f.cases.map(verdict) })) };
}

/** The fixture agents and their case files, plus case files that fail in each way a run meets. */
function suiteDir(): string {
  const root = tmpDir(true);
  const agents = nodePath.join(root, 'agents');
  write(agents, 'broken.contract.toml', 'agent = "failing.aip"\n[[case]]\nname = 1\n');
  write(agents, 'missing-agent.contract.toml', 'agent = "nowhere.aip"\n[[case]]\nname = "x"\nstage = "pre"\nprompt = "Go"\n');
  const c = (name: string, extra = '') => `[[case]]\nname = "${name}"\nstage = "pre"\nprompt = "Go"\n${extra}[case.expect]\nunchanged = true\n`;
  // a case the harness refuses as it runs: one run drops the file's cases and reports the first refusal only
  write(
    agents,
    'lister-mid-error.contract.toml',
    'agent = "lister.aip"\n' + c('runs first') + c('names itself a prev', '[[case.prev]]\nname = "lister.aip"\n') + c('never runs') + c('also refused', '[[case.prev]]\nname = "lister.aip"\n'),
  );
  // enough cases that both workers take some of each file
  for (let f = 0; f < 3; f++) write(agents, `many-${f}.contract.toml`, 'agent = "lister.aip"\n' + Array.from({ length: 12 }, (_, i) => c(`case ${i + 1}`)).join(''));
  return root;
}

describe('a suite split over two workers', () => {
  it('gives the result of one worker: the same cases in the same order, verdicts, errors, coverage', async () => {
    const root = suiteDir();
    const found = discover([root]);
    const options = { agents: found.agents };
    const one = await runContractFilesIsolated(found.files, options, { workers: 1 });
    const two = await runContractFilesIsolated(found.files, options, { workers: 2 });
    expect(one.cases.length).toBeGreaterThan(40);
    expect(one.failed).toBeGreaterThan(0);
    expect(one.skipped).toBeGreaterThan(0);
    expect(one.errors).toHaveLength(3);
    expect(one.errors.join('\n')).not.toMatch(/also refused/);
    expect(shown(two)).toEqual(shown(one));
  });

  it('selects the same cases with --filter, -t and --shard', async () => {
    const found = discover([suiteDir()]);
    for (const options of [{ filter: 'case 1' }, { testNamePattern: /^case [2-5]$/ }, { shard: { index: 2, count: 3 } }]) {
      const one = await runContractFilesIsolated(found.files, options, { workers: 1 });
      const two = await runContractFilesIsolated(found.files, options, { workers: 2 });
      expect(one.cases.length).toBeGreaterThan(0);
      expect(shown(two)).toEqual(shown(one));
    }
  });

  it('stops at --bail as one worker does (a bail run takes one worker)', async () => {
    const found = discover([suiteDir()]);
    const one = await runContractFilesIsolated(found.files, { bail: 2 }, { workers: 1 });
    const two = await runContractFilesIsolated(found.files, { bail: 2 }, { workers: 2 });
    expect(one.bailedAt).toBe(2);
    expect(one.notRun).toBeGreaterThan(0);
    expect(shown(two)).toEqual(shown(one));
  });

  it('fails a case that passes its deadline and runs every other case, as one worker does', async () => {
    const one = await runWithHang(1);
    const two = await runWithHang(2);
    expect(one.cases.map((c) => c.status)).toEqual(['passed', 'failed', 'failed', 'passed', 'passed']);
    expect(shown(two)).toEqual(shown(one));
  });
});

describe('onStart', () => {
  it('is called once, when the first case starts, on one worker and on two', async () => {
    const files = [nodePath.join(dir, 'second.contract.toml')];
    for (const workers of [1, 2]) {
      let calls = 0;
      const r = await runContractFilesIsolated(files, {}, { workers, onStart: () => calls++ });
      expect([calls, r.passed]).toEqual([1, 1]);
    }
  });
});

describe('countCases', () => {
  it("counts the files' [[case]] headers, a shard's share of them, and nothing for a file it cannot read", () => {
    const root = tmpDir();
    const a = write(root, 'a.contract.toml', 'agent = "a.aip"\n[[case]]\nname = "x"\n  [[ case ]]\nname = "y"\n# [[case]] in a comment\n[[case.prev]]\nname = "p"\n');
    const b = write(root, 'b.contract.toml', '[[case]]\nname = "z"\n');
    expect(countCases([a, b])).toBe(3);
    expect(countCases([a, b], { shard: { index: 1, count: 2 } })).toBe(2);
    expect(countCases([nodePath.join(root, 'gone.contract.toml')])).toBe(0);
  });
});

describe('suiteWorkersFor', () => {
  it('takes two workers from SPLIT_FROM_CASES cases on, with SPLIT_FROM_CORES cores, and one for a run that selects or bails', () => {
    const root = tmpDir();
    const c = '[[case]]\nname = "x"\n';
    const half = Math.ceil(SPLIT_FROM_CASES / 2);
    const small = write(root, 'small.contract.toml', c.repeat(half));
    const large = write(root, 'large.contract.toml', c.repeat(SPLIT_FROM_CASES));
    const cores = SPLIT_FROM_CORES;
    const workersFor = (files: string[], options: SuiteOptions, n: number) => suiteWorkersFor(countCases(files, options), options, n);
    expect(workersFor([small], {}, cores)).toBe(1);
    expect(workersFor([large], {}, cores)).toBe(2);
    expect(workersFor([small, small], {}, cores)).toBe(2);
    expect(workersFor([large], {}, cores - 1)).toBe(1);
    expect(workersFor([large], { bail: 1 }, cores)).toBe(1);
    expect(workersFor([large], { filter: 'x' }, cores)).toBe(1);
    expect(workersFor([large], { testNamePattern: /x/ }, cores)).toBe(1);
    expect(workersFor([large, large], { shard: { index: 1, count: 2 } }, cores)).toBe(2);
    expect(workersFor([large], { shard: { index: 1, count: 2 } }, cores)).toBe(1);
    expect(workersFor([nodePath.join(root, 'gone.contract.toml')], {}, cores)).toBe(1);
  });
});
