import { describe, expect, it } from 'vitest';
import { suggest } from '../../src/support/suggest.ts';

describe('suggest', () => {
  const fields = ['coder_params', 'coder_prompts', 'coder_prompt', 'coder_response', 'error_msg', 'agent_result', 'success'];
  it('finds typos and shortened names', () => {
    expect(suggest('coder_prompst', fields)).toBe('coder_prompts');
    expect(suggest('sucess', fields)).toBe('success');
    expect(suggest('Coder_Params', fields)).toBe('coder_params');
    expect(suggest('prompt', fields)).toBe('coder_prompt');
    expect(suggest('result', fields)).toBe('agent_result');
  });
  it('suggests nothing for unrelated words', () => {
    expect(suggest('banana', fields)).toBeUndefined();
    expect(suggest('x', fields)).toBeUndefined();
  });
});

describe('suggest without affixes', () => {
  it('suggests only typos, not names that contain a candidate', () => {
    expect(suggest('description', ['name', 'on'])).toBe('on');
    expect(suggest('description', ['name', 'on'], { affix: false })).toBeUndefined();
    expect(suggest('enabeld', ['name', 'enabled'], { affix: false })).toBe('enabled');
  });
});
