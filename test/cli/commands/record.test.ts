import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { DEMO_AI, recordDemo } from '../../helpers/record.ts';

describe('record import', () => {
  const { ws, record } = recordDemo();
  const id = record.run.id.slice(0, 13);

  it('writes the case files of the latest record and says how to run them; a second import of it is refused', async () => {
    const r = await runCli(['record', 'import', 'latest', '--agent', 'prompt-refiner', '--workspace', ws], ws);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = nodePath.join(ws, `my-agents/prompt-refiner.record-${id}.contract.toml`);
    expect(r.stdout).toContain(`: 1 case of my-agents/prompt-refiner.aip\n`);
    expect(r.stdout).toContain('run them: npx coder-subagents test ');
    expect(fs.existsSync(file)).toBe(true);
    const again = await runCli(['record', 'import', 'latest', '--agent', 'prompt-refiner', '--workspace', ws], ws);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/prompt-refiner\.record-.*\.contract\.toml exists already: remove it, or import another run/);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^# Cases from run record /);
    expect(text).toMatch(/^agent = "prompt-refiner\.aip"$/m);
  });

  it('fills the sub-agents\' own model answers from --ai, and --json says what it wrote', async () => {
    const r = await runCli(['record', 'import', record.run.id, '--agent', 'instruction-clarifier', '--ai', DEMO_AI, '--workspace', ws, '--json'], ws);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { files: { agent: string; cases: number; todos: number }[] };
    expect(out.files).toEqual([expect.objectContaining({ agent: 'my-agents/instruction-clarifier.aip', cases: 1, todos: 0 })]);
  });

  it("imports a parallel group's members one case per call (each with its own entry keys), and the cases pass", async () => {
    const r = await runCli(['record', 'import', 'latest', '--agent', 'review', '--ai', DEMO_AI, '--workspace', ws], ws);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(': 2 cases of my-agents/review.aip\n');
    const file = nodePath.join(ws, `my-agents/review.record-${id}.contract.toml`);
    expect(fs.readFileSync(file, 'utf8')).toMatch(/focus = "security"[\s\S]*focus = "tests"/);
    const t = await runCli(['test', file], ws);
    expect(t.stdout).toMatch(/2 passed/);
    expect(t.code).toBe(0);
  });

  it('exits 2 naming the record it could not find, or the agent it has no call of', async () => {
    const missing = await runCli(['record', 'import', 'nope', '--workspace', ws], ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run record 'nope': not a folder with run\.json, nor a run id in /);
    const agent = await runCli(['record', 'import', 'latest', '--agent', 'reviewr', '--workspace', ws], ws);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/has no call of sub-agent 'reviewr'/);
  });
});
