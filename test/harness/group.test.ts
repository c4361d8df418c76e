/**
 * Parallel groups under the contract harness: a group case scripts each member's answers and expects the combined
 * result; the order check runs the members in other orders and fails a case whose result depends on it.
 */
import { fileURLToPath } from 'node:url';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { otherOrders } from '../../src/harness/group.ts';
import { readFileSync } from 'node:fs';
import { parseContractFile } from '../../src/harness/case-file.ts';
import { runCase, runContractFile } from '../../src/harness/run-case.ts';
import { runCli } from '../helpers/cli.ts';
import { tmpDir, write } from './helpers.ts';

const CASES = fileURLToPath(new URL('../../fixtures/coder/parallel/cases', import.meta.url));
const file = (name: string) => nodePath.join(CASES, `${name}.contract.toml`);

describe('group cases', () => {
  it('three reviewers: each member scripted by its agent and focus, the failed one and the others as expected', () => {
    const r = runContractFile(file('reviewers'));
    expect(r.agent).toBe('parallel(../my-agents/review.aip, ../my-agents/review.aip, ../my-agents/review.aip)');
    expect(r.cases.map((c) => [c.status, c.message, c.warnings])).toEqual([
      ['passed', undefined, []],
      ['passed', undefined, []],
    ]);
    expect(r.cases[0]!.result?.members?.map((m) => m.ok)).toEqual([true, false, true]);
  });

  it('expect.members is checked member by member: a wrong result or error fails the case, naming the member', () => {
    const text = readFileSync(file('reviewers'), 'utf8')
      .replace('{ error = "tests gave up" }', '{ error = "timed out" }')
      .replace('review = "style: fine", index = 3', 'review = "style: bad", index = 3');
    const parsed = parseContractFile(text, file('reviewers'));
    const r = runCase(parsed, parsed.cases[0]!);
    expect(r.status).toBe('failed');
    expect(r.message).toContain('members[2] (../my-agents/review.aip).error: expected a match for /timed out/, got "reviewer tests gave up"');
    expect(r.message).toContain('members[3] (../my-agents/review.aip).agent_result.review');
  });

  it('order_check = true in a case runs the other orders without the flag', () => {
    const text = readFileSync(file('stamps'), 'utf8').replace('stage = "pre"', 'stage = "pre"\norder_check = true');
    const parsed = parseContractFile(text, file('stamps'));
    expect(runCase(parsed, parsed.cases[0]!).message).toMatch(/^order-check: /);
  });

  it('an order-dependent group passes in member order, and fails with --order-check naming both orders and the difference', () => {
    const plain = runContractFile(file('stamps'));
    expect(plain.cases[0]!.status).toBe('passed');
    const checked = runContractFile(file('stamps'), { orderCheck: true });
    expect(checked.cases[0]!.status).toBe('failed');
    expect(checked.cases[0]!.message).toMatch(/^order-check: the members run in order 2, 1 give another result than in order 1, 2:\n {2}result\.files\["notes\.txt"\]/);
    expect(checked.cases[0]!.message).toContain('result.history[1].agent_result');
  });

  it('an order-independent group passes the order check (all 6 orders of 3 reviewers)', () => {
    const r = runContractFile(file('reviewers'), { orderCheck: true });
    expect(r.cases.map((c) => c.status)).toEqual(['passed', 'passed']);
  });

  it('tries every order up to 6 members, beyond that the reversed order and 4 seeded shuffles', () => {
    expect(otherOrders(3)).toHaveLength(5);
    expect(otherOrders(6)).toHaveLength(719);
    const seven = otherOrders(7);
    expect(seven[0]).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(seven.length).toBeLessThanOrEqual(5);
    expect(otherOrders(7)).toEqual(seven);
    for (const o of seven) expect([...o].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('coder-subagents test --order-check', () => {
  it('passes the order-dependent case without the flag and fails it with --order-check', async () => {
    const without = await runCli(['test', 'cases/stamps.contract.toml'], nodePath.dirname(CASES));
    expect(without.code).toBe(0);
    const withFlag = await runCli(['test', '--order-check', 'cases/stamps.contract.toml'], nodePath.dirname(CASES));
    expect(withFlag.code).toBe(1);
    expect(withFlag.stdout).toContain('order-check: the members run in order 2, 1 give another result than in order 1, 2');
  });
});

describe('group cases in the event form', () => {
  it('on = "end" / "start": each member gets the event-form input of that event', () => {
    const dir = tmpDir();
    const member = '# Output\n```lua\nreturn { agent_result = input.event .. " " .. input.stage .. " " .. input.parallel.index }\n```\n';
    write(dir, 'agents/r1.aip', member);
    write(dir, 'agents/r2.aip', member);
    const r = runContractFile(write(dir, 'agents/g.contract.toml', `group = { parallel = ["r1.aip", "r2.aip"] }
[[case]]
name = "end"
on = "end"
[case.expect]
members = [{ agent_result = "end post 1" }, { agent_result = "end post 2" }]
redo = false
[[case]]
name = "start"
on = "start"
[case.expect]
members = [{ agent_result = "start pre 1" }, { agent_result = "start pre 2" }]
emit = []
`));
    expect(r.cases.map((c) => [c.stage, c.event, c.status, c.message])).toEqual([
      ['post', 'end', 'passed', undefined],
      ['pre', 'start', 'passed', undefined],
    ]);
  });
});

describe("a group whose run stops (a looping member)", () => {
  it('says why each member has no result, never "undefined"', () => {
    const dir = tmpDir();
    write(dir, 'agents/ok.aip', '# Output\n```lua\nreturn { agent_result = "fine" }\n```\n');
    write(dir, 'agents/loop.aip', '# Output\n```lua\nwhile true do end\n```\n');
    const r = runContractFile(
      write(dir, 'agents/g.contract.toml', `group = { parallel = ["ok.aip", "loop.aip", "ok.aip"], on_error = "continue", concurrency = 2 }
[[case]]
name = "loops"
stage = "pre"
[case.expect]
members = [{ agent_result = "fine" }, { error = "budget" }, { agent_result = "fine" }]
`),
      { budget: 1_000_000 },
    );
    const message = r.cases[0]!.message ?? '';
    expect(message).not.toContain('undefined');
    expect(message).toContain("members[1] (ok.aip): failed: no result: the group's run stopped: ");
    expect(message).not.toContain('members[2]');
  });
});
