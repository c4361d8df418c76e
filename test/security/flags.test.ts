// Numeric flags are bounded with a one-line message, and a path that must be a directory is refused before any work.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { afterAll, arena, type Arena } from './helpers.ts';

let a: Arena;
beforeEach(() => {
  a = arena();
  a.write('ok.aip', afterAll('return 1'));
});
afterEach(() => a.cleanup());

describe('numeric flags', () => {
  it('--timeout above what a timer can wait is refused with a clear message, not a run ended at once', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const r = await runCli(['run-agent', 'ok.aip', '--timeout', '3000000'], a.ws);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('error: --timeout 3000000: at most 2147483 seconds (about 24.8 days; 0 = no deadline)\n');
      const t = await runCli(['test', '--timeout', '1e300'], a.ws);
      expect(t.code).toBe(2);
      expect(t.stderr).toMatch(/--timeout 1e300: at most 2147483 seconds/);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('--budget and --bail past integer precision are refused', async () => {
    const r = await runCli(['run-agent', 'ok.aip', '--budget', '1e300'], a.ws);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --budget 1e300: at most 9007199254740991\n$/);
    const b = await runCli(['test', '--bail', '1e300'], a.ws);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--bail.*at most 9007199254740991/);
    const s = await runCli(['test', '--shard', '1/99999999999999999999'], a.ws);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/--shard 1\/99999999999999999999: expected INDEX\/COUNT/);
  });
});

describe('paths that must be directories', () => {
  it('a file given as the workspace is refused before any work', async () => {
    for (const cmd of [['run-agent', 'ok.aip'], ['run'], ['install']]) {
      const r = await runCli([...cmd, '--workspace', 'ok.aip'], a.ws);
      expect(r.code, cmd.join(' ')).toBe(2);
      expect(r.stderr, cmd.join(' ')).toMatch(/--workspace ok\.aip: not a directory/);
    }
  });
});
