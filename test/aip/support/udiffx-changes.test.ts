// The <FILE_CHANGES> envelope: which directives a model answer holds; the upstream cases are in
// test/conformance/udiffx.test.ts.
import { describe, expect, it } from 'vitest';
import { directiveBody, extractFileChanges } from '../../../src/aip/support/udiffx-changes.ts';

describe('udiffx FILE_CHANGES envelope', () => {
  it('reads only the first block, strips one leading newline and a wrapping fence', () => {
    const { directives, rest } = extractFileChanges('A\n<FILE_CHANGES>\n<FILE_NEW file_path="x">\n```ts\nconst a = 1;\n```\n</FILE_NEW>\n</FILE_CHANGES>\nB\n<FILE_CHANGES>\n<FILE_DELETE file_path="y" />\n</FILE_CHANGES>\n');
    expect(directives).toEqual([{ kind: 'New', file_path: 'x', content: 'const a = 1;\n' }]);
    expect(rest).toBe('A\n\nB\n\n');
    expect(directiveBody('\n````\n````')).toBe('');
    expect(directiveBody('\nno fence\n')).toBe('no fence\n');
  });

  it('an unclosed block applies nothing', () => {
    expect(extractFileChanges('<FILE_CHANGES>\n<FILE_NEW file_path="x">\ny\n</FILE_NEW>\n').directives).toEqual([]);
  });
});
