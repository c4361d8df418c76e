import { describe, expect, it } from 'vitest';
import { applyChanges } from '../../../src/aip/support/change-blocks.ts';

describe('applyChanges', () => {
  it('removes one adjacent newline with an empty replacement', () => {
    expect(applyChanges('a\nb\nc\n', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n', 'f').content).toBe('a\nc\n');
    expect(applyChanges('a\nb', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE', 'f').content).toBe('a');
    expect(applyChanges('b\nc', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE', 'f').content).toBe('c');
  });

  it('retries with CRLF line ends', () => {
    const r = applyChanges('one\r\ntwo\r\nthree\r\n', '<<<<<<< SEARCH\none\ntwo\n=======\nONE\nTWO\n>>>>>>> REPLACE\n', 'f');
    expect(r.content).toBe('ONE\r\nTWO\r\nthree\r\n');
    expect(r.info).toEqual({ changed_count: 1 });
    const crlfChanges = '<<<<<<< SEARCH\r\ntwo\r\n=======\r\n2\r\n>>>>>>> REPLACE\r\n';
    expect(applyChanges('one\ntwo\n', crlfChanges, 'f').content).toBe('one\n2\n');
  });

});
