/**
 * The names a prompt's `sub_agents` gives, checked where they are written (lua/utils_names.lua): an event nothing
 * sends, an emitted event no entry listens to, keys that look like a misspelt contract key; and the keys that are
 * settings, never warned (an event-form entry's own keys, a member's, a built-in's). Fixture:
 * fixtures/coder-upstream/prompts/names.
 */
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder } from '../helpers/coder.ts';
import { tmpDir, write } from '../harness/helpers.ts';
import { modelNameFindings } from '../../src/check/model-names.ts';
import { modelsWorkspace } from '../helpers/models.ts';

const UP = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url)).replace(/[\\/]$/, '');

describe('names in sub_agents', () => {
  const r = runCoder('prompts/names', { workspace: UP, aipackVersion: '0.8.33' });
  const warnings = r.prints.filter((p) => p.startsWith('WARNING: '));

  it('warns, with did-you-mean, about an event the pack never sends, an emitted event nobody hears, and a misspelt key', () => {
    completed(r);
    expect(warnings).toEqual([
      "WARNING: sub_agents[2]: unknown key 'enabeld' (did you mean 'enabled'? kept, the agent reads it as input.agent_config.enabeld)",
      "WARNING: sub_agents[4]: unknown key 'tone' (kept, the agent reads it as input.agent_config.tone; put an agent's own settings under config = { ... }, which is never warned about)",
      "WARNING: sub_agents[6]: parallel[2]: unknown key 'optoins' (did you mean 'options'? kept, the agent reads it as input.agent_config.optoins)",
      "WARNING: sub_agents[2] (my-agents/after-run.aip) listens to 'strat', which the pack never sends (it sends 'start' and 'end'; a sub-agent emits events named 'ns::event'): it never runs (did you mean 'start'?)",
      "WARNING: Sub-agent [my-agents/ctx-narrow.aip] emitted 'ctx::narrowed', which no entry listens to: nothing runs for it (did you mean 'ctx::narowed'?)",
    ]);
  });

  it("never warns about an event-form entry's own keys, a member's own keys or a built-in's settings", () => {
    const text = warnings.join('\n');
    expect(text).not.toMatch(/'focus'|'globs'|'max_file_size_kb'/);
  });
});

describe('a sub-agent named outside the workspace', () => {
  it('says it is outside the workspace, not only that it does not exist', () => {
    const dir = tmpDir();
    write(dir, 'outside.aip', '# Output\n```lua\nreturn nil\n```\n');
    write(dir, 'ws/ai.toml', '');
    write(dir, 'ws/.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = ["../outside.aip"]\n```\nDo it\n====\n');
    const r = runCoder(undefined, { workspace: nodePath.join(dir, 'ws'), aipackVersion: '0.8.33' });
    expect(r.outcome?.skipped ?? r.error?.message).toContain(
      `Sub-agent [../outside.aip] not found: ${nodePath.join(dir, 'outside.aip')} is outside the workspace (${nodePath.join(dir, 'ws')})`,
    );
  });
});

describe('model names', () => {
  it('the run warns about each model name AIPack would not take as meant, as check does (one line each, did-you-mean)', () => {
    const { ws, prompt } = modelsWorkspace();
    write(ws, 'ai.toml', '');
    const r = runCoder(undefined, { workspace: ws, aipackVersion: '0.8.33' });
    const warnings = r.prints.filter((p) => p.startsWith('WARNING: ') && p.includes("model '"));
    expect(warnings).toEqual(modelNameFindings(ws, prompt).map((f) => `WARNING: ${f.message}`));
    expect(warnings).toHaveLength(4);
  });
});
