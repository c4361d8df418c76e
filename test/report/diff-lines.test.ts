import { describe, expect, it } from 'vitest';
import { diffLines } from '../../src/report/diff-lines.ts';

describe('diffLines', () => {
  it('gives hunk heads and marked lines, without file headers or no-newline markers', () => {
    expect(diffLines('x\ny\n', 'x\nz')).toEqual(['@@ -1,2 +1,2 @@', ' x', '-y', '+z']);
  });

  it('is empty for equal texts', () => {
    expect(diffLines('same\n', 'same\n')).toEqual([]);
  });

  it('keeps `context` lines around a change', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f'].join('\n');
    const after = before.replace('d', 'D');
    expect(diffLines(before, after, 1)).toEqual(['@@ -3,3 +3,3 @@', ' c', '-d', '+D', ' e']);
  });
});

describe('diffLines of a file created or deleted', () => {
  it('writes the empty side as starting at line 0', () => {
    expect(diffLines('', 'new\n')).toEqual(['@@ -0,0 +1,1 @@', '+new']);
    expect(diffLines('old\n', '')).toEqual(['@@ -1,1 +0,0 @@', '-old']);
  });
});

describe('diffLines of texts without a last newline', () => {
  it('compares the last line as a line: appending lines does not change it', () => {
    expect(diffLines('make it\nnicer', 'make it\nnicer\n\nFocus: auth')).toEqual(['@@ -1,2 +1,4 @@', ' make it', ' nicer', '+', '+Focus: auth']);
  });
});
