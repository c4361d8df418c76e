import { describe, expect, it } from 'vitest';
import { allSections, filteredSections, mdLines, peekHeading, sectionTable } from '../../../src/aip/support/md-sections.ts';

const lines = mdLines('intro\r\n# A\na\n## A.1\nsub\n```\n# fenced\n```\n# B\nb\n');

describe('markdown sections', () => {
  it('peekHeading reads ATX headings of level 1 to 6 only', () => {
    expect(peekHeading('## Two words ')).toEqual({ level: 2, name: 'Two words' });
    expect(peekHeading('#')).toEqual({ level: 1, name: '' });
    expect(peekHeading('####### seven')).toBeUndefined();
    expect(peekHeading('#tag')).toBeUndefined();
  });

  it('mdLines drops CRs and the empty piece after a final newline', () => {
    expect(mdLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(lines[0]).toBe('intro');
  });

  it('allSections cuts at every heading outside fences, the text before the first heading included', () => {
    const secs = allSections(lines).map(sectionTable);
    expect(secs.map((s) => [s.heading_level, s.heading_name])).toEqual([[0, ''], [1, 'A'], [2, 'A.1'], [1, 'B']]);
    expect(secs[2].content).toBe('## A.1\nsub\n```\n# fenced\n```\n');
    expect(secs[0]).toMatchObject({ heading_raw: '', heading_content: '', content: 'intro\n' });
  });

  it('filteredSections keeps sub-sections inside a match and stops at the next heading of the same level', () => {
    const a = filteredSections(lines, [{ level: 1, name: 'A' }]).map(sectionTable);
    expect(a.map((s) => s.content)).toEqual(['# A\na\n## A.1\nsub\n```\n# fenced\n```\n']);
    const pre = filteredSections(lines, [{ level: 0, name: '' }, { level: 1, name: 'B' }]);
    expect(pre.map((s) => s.lines)).toEqual([['intro'], ['# B', 'b']]);
    expect(filteredSections(lines, [{ level: 2, name: 'B' }])).toEqual([]);
  });
});
