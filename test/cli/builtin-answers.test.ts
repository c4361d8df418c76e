import { describe, expect, it } from 'vitest';
import { noAnswerHint } from '../../src/cli/builtin-answers.ts';

const error = (agent: string, prompt: string) =>
  `Sub-agent [${agent}] failed: Failed to run agent '${agent}': no scripted AI response for ${agent}\nhint: script one\n--- rendered prompt (what 'match' is tested against) ---\n${prompt}`;

describe('noAnswerHint (run, a model call with no scripted answer)', () => {
  it("gives a built-in's answer format with a scripted example, and the prompt as readable lines", () => {
    const hint = noAnswerHint(error('pro@coder/auto-fix', 'Fix these files.\n\n<FILE_CHANGES>'))!;
    expect(hint).toContain('It expects one <FILE_CHANGES> block');
    expect(hint).toContain('  [[response]]\n  agent = "pro@coder/auto-fix"\n  content = \'\'\'\n  <FILE_CHANGES>');
    expect(hint).toContain("The prompt it would get (what 'match' is tested against):\n  Fix these files.\n  \n  <FILE_CHANGES>");
    expect(hint).not.toContain('\\n');
  });

  it('gives the prompt of any other agent, at most 60 lines, and nothing for another failure', () => {
    const long = Array.from({ length: 70 }, (_, i) => `line ${i + 1}`).join('\n');
    const hint = noAnswerHint(error('my/agent.aip', long))!;
    expect(hint.split('\n')[0]).toBe('my/agent.aip got no scripted answer.');
    expect(hint).not.toContain('It expects');
    expect(hint).toContain('  line 60\n  ... (10 more lines; --trace shows them all)');
    expect(noAnswerHint('Sub-agent [x] failed: boom')).toBeUndefined();
  });
});
