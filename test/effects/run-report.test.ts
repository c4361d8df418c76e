import { describe, expect, it } from 'vitest';
import { failureReason } from '../../src/effects/run-report.ts';

describe('failureReason (the reason on a failed sub-agent line of `run`)', () => {
  it('drops what the line already says and joins a "Lua error:" heading with its message', () => {
    expect(
      failureReason("Sub-agent [my/a.aip] failed: Failed to run agent 'my/a.aip': Lua error:\nmy/a.aip:3: boom\nstack traceback:", 'my/a.aip'),
    ).toBe('Lua error: my/a.aip:3: boom');
    expect(failureReason('Sub-agent [x.aip] failed: no focus\nDetails: set focus', 'x.aip')).toBe('no focus');
    expect(failureReason('Sub-agent [x.aip] returned an invalid response: coder_prompts[2] must be a string, got number', 'x.aip')).toBe(
      'returned an invalid response: coder_prompts[2] must be a string, got number',
    );
  });

  it('keeps a message about another agent as it is', () => {
    expect(failureReason('Sub-agent [other.aip] failed: no', 'x.aip')).toBe('Sub-agent [other.aip] failed: no');
  });
});
