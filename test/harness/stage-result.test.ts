import { describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { driverInputOf, runDriver } from '../../src/harness/driver.ts';
import { stageResult } from '../../src/harness/stage-result.ts';
import { buildSandbox } from '../../src/harness/stage-sandbox.ts';
import { targetOf, type StageInput } from '../../src/harness/stage-request.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

const at = (agent: string) => ({ agent, baseDir: AGENTS });

/** The result of a stage run of `name` (under AGENTS or `dir`), shaped from its sandbox and its driver's answer. */
function shaped(name: string, input: StageInput, dir = AGENTS) {
  const agent = prepareAgent(name, dir);
  const target = targetOf(agent, input);
  const box = buildSandbox(agent, input, target, {});
  const driverInput = driverInputOf(agent, input, target, box.ws);
  const { result, ms } = runDriver(box.sim, box.driverName, agent, driverInput);
  return { r: stageResult(agent, input, target, box, driverInput, result, ms), result };
}

describe('the result of a stage run', () => {
  it('the params and prompts the pipeline left, what the stage began with, and the agent\'s input', () => {
    const { r, result } = shaped('prompt-refiner.aip', { prompt: 'Fix the login form', params: { model: 'flash' }, config: { focus: 'auth' } });
    expect(result.ok).toBe(true);
    expect(r.prompts).toEqual(['Fix the login form', 'Focus: auth']);
    expect(r.prompt).toBe('Fix the login form\n\nFocus: auth');
    expect(r.before).toEqual({ params: { model: 'flash', context_globs: [], structure_globs: [], knowledge_globs: [] }, prompts: ['Fix the login form'] });
    expect(r.input).toMatchObject({ coder_stage: 'pre', coder_prompt: 'Fix the login form' });
    expect(r.aiPrompts).toEqual([]);
    expect(r.trace.events.some((e) => e.kind === 'agent_start' && e.agent.includes('__contract_driver__'))).toBe(false);
  });

  it('a failed stage keeps the params the agent was given and says the pipeline\'s message', () => {
    const { r } = shaped('failing.aip', { prompt: 'Fix' });
    expect(r.ok).toBe(false);
    expect(r.error).toBe('Sub-agent [failing.aip] failed: no ticket configured\nDetails: add ticket = "ABC-1" to the entry');
    expect(r.prompts).toEqual(['Fix']);
  });

  it('warns about dropped params, unknown keys, sub_agents in params and ignored fields', () => {
    const r = runStage({ ...at('param-dropper.aip'), params: { write_mode: true } });
    expect(r.ok).toBe(true);
    expect(r.params).toEqual({ model: 'flash' });
    expect(r.warnings).toEqual([
      expect.stringMatching(/^coder_params drops write_mode: /),
      "unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored",
      expect.stringMatching(/^coder_params contains sub_agents: /),
      'pre ignores coder_response',
    ]);
  });
  it('an agent that returns nil changes nothing', () => {
    const dir = tmpDir();
    write(dir, 'gone.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    const { r } = shaped('gone.aip', { prompt: 'x' }, dir);
    expect(r.ok).toBe(true);
    expect(r.effect?.response).toBe('nil');
    expect(r.effect?.changed).toBe(false);
    expect(r.prompts).toEqual(['x']);
  });
});
