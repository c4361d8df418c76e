// `coder-subagents test` runs cases in a worker under a deadline per case: a case that passes it is reported
// failed with the timeout, and every other case keeps its own result (those before it and those after it).
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runContractFilesIsolated } from '../../src/harness/isolated.ts';

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

describe('a case that passes its deadline', () => {
  it('fails with the timeout as its cause; the cases before and after it keep their results', async () => {
    const files = ['maybe-hangs.contract.toml', 'second.contract.toml'].map((f) => nodePath.join(dir, f));
    const r = await runContractFilesIsolated(files, { budget: 1e15 }, { timeoutMs: 2000 });
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
