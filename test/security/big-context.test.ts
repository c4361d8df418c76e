// a huge context file (max_files_size_kb raised) reaches the model in one piece, without the runtime
// multiplying it: counting its tokens no longer spreads it into an array, and fengari no longer builds a key of
// hex digits when a big string indexes a table. 16 MB here (fast in CI); bench/attack13.bench.ts measures 50 MB.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterAll as after, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { arena, type Arena } from './helpers.ts';
import { testEngine } from '../helpers/engine.ts';
import { createLimits } from '../../src/engine/limits.ts';

let a: Arena;
beforeAll(() => {
  a = arena();
  a.write(
    '.aipack/.prompt/pro@coder/coder-prompt.md',
    '```toml\n#!meta\nbase_dir = ""\ncontext_globs = ["big.txt"]\nmax_files_size_kb = 100000\n```\n\nSummarize big.txt.\n\n====\n',
  );
  a.write('ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = "Done."\n');
  const line = 'lorem ipsum dolor sit amet, consectetur adipiscing elit \u00e9\u{1f600}\n';
  fs.writeFileSync(nodePath.join(a.ws, 'big.txt'), line.repeat(Math.ceil((16 * 1024 * 1024) / Buffer.byteLength(line))) + 'THE-END\n');
});
after(() => a.cleanup());

describe('a 16 MB context file', () => {
  it('reaches the model whole, and the run completes', async () => {
    const r = await runCli(['run', '--ai', 'ai.toml', '--json'], a.ws);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.status).toBe('completed');
    const prompt: string = report.ai_calls[0].prompt;
    expect(prompt).toContain('THE-END');
    expect(prompt.length).toBeGreaterThan(16 * 1024 * 1024 * 0.9);
  });

  it('a big string as a table key indexes like any string (one key per content)', () => {
    const out: string[] = [];
    const state = testEngine.createState({
      limits: createLimits(1e9),
      budget: 1e9,
      budgetMessage: 'budget',
      moduleDirs: [],
      readFile: () => undefined,
      loadRoots: [],
      baseDir: '/',
      print: (t) => out.push(t),
      displayPath: (p) => p,
    });
    state.exec(
      'local a = ("\\0\\255x"):rep(3000000) local b = ("\\0\\255"):rep(3000000, "x") .. "x" local t = { [a] = 1 } ' +
        't[b] = (t[b] or 0) + 1 t[a:sub(2)] = 5 local n = 0 for _ in pairs(t) do n = n + 1 end print(t[a], n, t["\\0\\255x"])',
      '=keys',
    );
    expect(out).toEqual(['2\n2\nnil']);
  });
});
