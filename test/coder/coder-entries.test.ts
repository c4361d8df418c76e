/**
 * End-to-end on a copy of fixtures/coder/pipeline: what the pack does with entries the contract names
 * (pack/SUB_AGENTS.md): a stage-form sub_agents_next tail runs in the stage run that returned it, whatever stages
 * its entries list; a disabled entry is skipped, its file never looked for.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { completed, runCoder, WS } from '../helpers/coder.ts';
import { tmpDir } from '../harness/helpers.ts';

/** A copy of the fixture workspace with one more scenario: `prompts/<name>` with these sub_agents. */
function workspaceWith(name: string, subAgents: string): string {
  const ws = nodePath.join(tmpDir(), 'pipeline');
  cpSync(WS, ws, { recursive: true });
  mkdirSync(nodePath.join(ws, 'prompts', name), { recursive: true });
  // the "next" scenario's answer: a run with one AI call
  writeFileSync(nodePath.join(ws, 'prompts', name, 'coder-prompt.md'), `\`\`\`toml\n#!meta\nsub_agents = ${subAgents}\n\`\`\`\n\n[scenario: next] Explain greet.\n`);
  return ws;
}

describe('a stage-form sub_agents_next tail', () => {
  it('runs in the stage run that returned it, though its entries list other stages; not again in theirs', () => {
    const ws = workspaceWith('tail', '[{ name = "my-agents/next.aip", next = [{ name = "my-agents/record.aip", stages = ["post"], tag = "tail" }] }]');
    const run = runCoder('prompts/tail', { workspace: ws });
    completed(run);
    expect(run.calls.map((c) => `${c.stage}:${c.agent}`)).toEqual(['pre:my-agents/next.aip', 'pre:my-agents/record.aip']);
    expect(run.calls[1]!.response).toEqual({ agent_result: { stage: 'pre', tag: 'tail' } });
  });
});

describe('a disabled entry', () => {
  it('is skipped without its file being looked for: a missing file does not fail the run', () => {
    const ws = workspaceWith('disabled', '[{ name = "my-agents/gone.aip", enabled = false }, { name = "my-agents/gone-too.aip", enabled = false, stages = ["post"] }, "my-agents/noop.aip"]');
    const run = runCoder('prompts/disabled', { workspace: ws });
    completed(run);
    expect(run.calls.map((c) => `${c.stage}:${c.agent}`)).toEqual(['pre:my-agents/noop.aip']);
  });

  it('an enabled entry whose file is missing still fails the run before any model call', () => {
    const ws = workspaceWith('missing', '[{ name = "my-agents/gone.aip", stages = ["post"] }, "my-agents/noop.aip"]');
    const run = runCoder('prompts/missing', { workspace: ws });
    expect(run.outcome?.skipped).toBe(
      `Sub-agent [my-agents/gone.aip] not found: ${ws}/my-agents/gone.aip does not exist (a name is a path from the workspace root; checked before the run, before any model call)`,
    );
    expect(run.ai).toEqual([]);
  });
});
