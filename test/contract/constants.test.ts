import { describe, expect, it } from 'vitest';
import { DEFAULT_STAGES, EVENT_FORM_STAGES, EVENT_STAGES, EVENTS, STAGES, WORKBENCH_DONE_EVENT } from '../../src/contract/constants.ts';

describe('the contract constants', () => {
  it('events and defaults name stages of the contract: start runs at pre, end at post', () => {
    expect(EVENT_STAGES).toEqual({ start: 'pre', end: 'post' });
    expect(EVENTS).toEqual(['start', 'end']);
    for (const s of [...DEFAULT_STAGES, ...EVENT_FORM_STAGES, ...Object.values(EVENT_STAGES)]) expect(STAGES).toContain(s);
    expect(WORKBENCH_DONE_EVENT).toMatch(/^\w+::\w+$/);
  });
});
