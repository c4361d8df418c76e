import { describe, expect, it } from 'vitest';
import { CHECK_TEMPLATES, MESSAGE_TEMPLATES } from '../../src/contract/message-templates.ts';

/** The `{name}` placeholders of a template. */
const fields = (t: string) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

describe('the contract message templates', () => {
  it('name their fields as `{name}` placeholders, which TS and the generated Lua fill alike', () => {
    expect(fields(MESSAGE_TEMPLATES.failed)).toEqual(['name', 'error']);
    expect(fields(MESSAGE_TEMPLATES.invalid)).toEqual(['name', 'what']);
    expect(fields(CHECK_TEMPLATES.exclusive)).toEqual(['other', 'path']);
  });
});
