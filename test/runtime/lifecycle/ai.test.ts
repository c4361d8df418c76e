import { describe, expect, it } from 'vitest';
import { ScriptedAi } from '../../../src/runtime/ai.ts';
import { runAgentText, runFailure } from '../../helpers/agent-text.ts';

const ai = () => ScriptedAi.fromList([{ match: 'Hello', content: 'hi', reusable: true }]);

describe('the AI call of a task', () => {
  it('renders the prompt parts with input and data, and records the call with its parts', () => {
    const text = '# Data\n\n```lua\nreturn { who = "Ann" }\n```\n\n# System\n\nBe short.\n\n# Instruction\n\nHello {{data.who}} ({{input}})\n';
    const { outcome, sim } = runAgentText(text, { ai: ai(), inputs: ['x'] });
    expect(outcome.outputs).toEqual(['hi']);
    const [call] = sim.trace.of('ai');
    expect(call.parts.map((p) => [p.role, p.content.trim()])).toEqual([['system', 'Be short.'], ['user', 'Hello Ann (x)']]);
    expect(call.model).toBe('sim-model');
  });

  it('puts attachments first, and names a missing one', () => {
    const text = '# Data\n\n```lua\nreturn aip.flow.data_response({ attachments = { file_source = "none.pdf", title = "T" } })\n```\n\n# Instruction\n\nHello\n';
    const { sim } = runAgentText(text, { ai: ai(), inputs: [1] });
    expect(sim.trace.of('ai')[0].parts[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/^Error while attaching file '\/.*\/none\.pdf'\nCause: /) });
  });

  it('no prompt part: no AI call; an unanswered prompt fails the run naming it', () => {
    const { sim } = runAgentText('# Output\n\n```lua\nreturn 1\n```\n', { inputs: [1] });
    expect(sim.trace.of('ai')).toEqual([]);
    expect(runFailure('# Instruction\n\nUnknown\n', { inputs: [1] })).toMatch(/no scripted AI response/);
  });
});
