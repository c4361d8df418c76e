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


  it('an empty replacement also takes a CRLF line break with it', () => {
    expect(applyChanges('a\r\nb\r\nc\r\n', '<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE', 'f').content).toBe('a\r\nc\r\n');
  });

  it('applies blocks in order to the changed content and collects the misses', () => {
    const blocks = '<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nq\n=======\nw\n>>>>>>> REPLACE\n';
    expect(applyChanges('x x\n', blocks, 'f')).toEqual({
      content: 'z x\n',
      info: { changed_count: 2, failed_changes: [{ search: 'q', replace: 'w', reason: 'Search block not found in content' }] },
    });
    expect(applyChanges('old', 'whole new text', 'f')).toEqual({ content: 'whole new text', info: { changed_count: 1 } });
  });

  it('names the file and line of malformed change text', () => {
    expect(() => applyChanges('a', '<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n', 'src/x.ts')).toThrow(
      "aip.file.save_changes - Malformed change blocks for 'src/x.ts' at line 3: expected '=======' before '>>>>>>> REPLACE'",
    );
    expect(() => applyChanges('a', '<<<<<<< SEARCH\na\n=======\n<<<<<<< SEARCH\n', 'f')).toThrow(/at line 4: expected '>>>>>>> REPLACE' before a new '<<<<<<< SEARCH'/);
  });
});
