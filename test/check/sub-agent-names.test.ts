import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { emittedEvents, subAgentNameFindings } from '../../src/check/sub-agent-names.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const UP = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url)).replace(/[\\/]$/, '');

describe('subAgentNameFindings (the names a prompt file gives, before anything runs)', () => {
  it('fails an event nothing sends, warns about events emitted and listened to on one side only and about misspelt keys', () => {
    const found = subAgentNameFindings(UP, nodePath.join(UP, 'prompts/names/coder-prompt.md'));
    const shown = found.map((f) => `${f.line}:${f.column} ${f.severity ?? 'error'} ${f.message}`);
    expect(shown).toEqual([
      "9:53 warning sub_agents[2]: unknown key 'enabeld' (did you mean 'enabled'? kept, the agent reads it as input.agent_config.enabeld)",
      "13:62 warning sub_agents[4]: unknown key 'tone' (kept, the agent reads it as input.agent_config.tone; put an agent's own settings under config = { ... }, which is never warned about)",
      "17:108 warning sub_agents[6]: parallel[2]: unknown key 'optoins' (did you mean 'options'? kept, the agent reads it as input.agent_config.optoins)",
      "9:44 error sub_agents[2] (my-agents/after-run.aip) listens to 'strat', which the pack never sends (it sends 'start' and 'end'; a sub-agent emits events named 'ns::event'): it never runs (did you mean 'start'?)",
      "11:46 warning sub_agents[3] listens to 'ctx::narowed', which no sub-agent of this prompt emits (did you mean 'ctx::narrowed'?) (my-agents/ctx-narrow.aip emits it)",
      "7:13 warning my-agents/ctx-narrow.aip emits 'ctx::narrowed', which no entry of this prompt listens to (did you mean 'ctx::narowed'?)",
    ]);
    expect(found.every((f) => f.rule === 'sub-agent-name' && f.file === 'prompts/names/coder-prompt.md')).toBe(true);
  });

  it('finds nothing in a prompt whose names agree (plan::ready emitted and listened to)', () => {
    const ws = tmpDir();
    write(ws, '.aipack/config.toml', '');
    write(ws, 'agents/plan.aip', '# Output\n```lua\nreturn { emit_events = { "plan::ready" } }\n```\n');
    write(ws, 'agents/build.aip', '# Output\n```lua\nreturn nil\n```\n');
    const prompt = write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', [
      '```toml', '#!meta',
      'sub_agents = [{ name = "agents/plan.aip", on = "start", focus = "auth" }, { name = "agents/build.aip", on = "plan::ready" }]',
      '```', 'Go', '====', '',
    ].join('\n'));
    expect(subAgentNameFindings(ws, prompt)).toEqual([]);
    write(ws, 'agents/build.aip', '# Output\n```lua\nreturn nil\n```\n');
    const typo = write(ws, 'p2/coder-prompt.md', ['```toml', '#!meta', 'sub_agents = [{ name = "agents/plan.aip", on = "start" }, { name = "agents/build.aip", on = "plan::redy" }]', '```', 'Go', ''].join('\n'));
    expect(subAgentNameFindings(ws, typo).map((f) => f.message)).toEqual([
      "sub_agents[2] listens to 'plan::redy', which no sub-agent of this prompt emits (did you mean 'plan::ready'?) (agents/plan.aip emits it)",
      "agents/plan.aip emits 'plan::ready', which no entry of this prompt listens to (did you mean 'plan::redy'?)",
    ]);
  });

  it('emittedEvents reads the string literals of emit_events tables', () => {
    expect(emittedEvents('return { emit_events = { "a::b", \'c::d\' } }\nlocal x = { emit_events = {} }')).toEqual(['a::b', 'c::d']);
  });
});
