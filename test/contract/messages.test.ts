import { describe, expect, it } from 'vitest';
import { messages } from '../../src/contract/messages.ts';

describe('messages (sections 3 and 4)', () => {
  it('failed', () => {
    expect(messages.failed('a.aip', 'boom')).toBe('Sub-agent [a.aip] failed: boom');
    expect(messages.failed('a.aip', 'boom', 'more')).toBe('Sub-agent [a.aip] failed: boom\nDetails: more');
    expect(messages.failed('a.aip')).toBe('Sub-agent [a.aip] failed: no error_msg given');
    expect(messages.failed('a.aip', undefined, 'd')).toBe('Sub-agent [a.aip] failed: no error_msg given\nDetails: d');
    expect(messages.failed('a.aip', null, null)).toBe('Sub-agent [a.aip] failed: no error_msg given');
    expect(messages.failed('x', '{name} $1 %1')).toBe('Sub-agent [x] failed: {name} $1 %1');
  });
  it('invalid', () => {
    expect(messages.invalid('pro@coder/x', 'coder_prompts[2] must be a string, got number')).toBe(
      'Sub-agent [pro@coder/x] returned an invalid response: coder_prompts[2] must be a string, got number',
    );
  });
  it('raised', () => {
    expect(messages.raised('a', 'agent not found')).toBe('Sub-agent [a] failed: agent not found');
    expect(messages.raised('a', new Error('bad'))).toBe('Sub-agent [a] failed: bad');
    expect(messages.raised('a', { message: 'm' })).toBe('Sub-agent [a] failed: m');
  });
  it('step cap and version', () => {
    expect(messages.stepCap('pre_task')).toBe('Sub-agent pipeline exceeded 100 steps in stage pre_task');
    expect(messages.version('0.8.14')).toBe('Sub-agents require AIPack 0.8.15 or above (current: 0.8.14)');
  });
});
