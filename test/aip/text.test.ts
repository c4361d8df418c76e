import { describe, expect, it } from 'vitest';
import { text } from '../../src/aip/text.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { LuaError, LuaMulti } from '../../src/engine/values.ts';

const t = text({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

/** The Lua return values of a call, as a list. */
function rets(v: unknown): unknown[] {
  return v instanceof LuaMulti ? v.values : [v];
}

describe('aip.text trims', () => {
  it('trims Unicode whitespace like Rust (NEL yes, BOM no)', () => {
    expect(t.trim('  \t a b \n')).toBe('a b');
    expect(t.trim('\u0085x\u3000')).toBe('x');
    expect(t.trim('\uFEFFx')).toBe('\uFEFFx');
    expect(t.trim_start('  a  ')).toBe('a  ');
    expect(t.trim_end('  a \r\n')).toBe('  a');
  });

  it('returns nil for nil and raises for other non-strings', () => {
    expect(t.trim(undefined)).toBeUndefined();
    expect(() => t.trim(12)).toThrow(LuaError);
    expect(() => t.trim({})).toThrow(/aip\.text\.trim: expected 'content' to be a string or nil, got table/);
    expect(() => t.trim_end(null)).toThrow(/got userdata/);
  });
});

describe('aip.text.split_first / split_last', () => {
  it('splits on the first occurrence', () => {
    expect(rets(t.split_first('first part===second part', '==='))).toEqual(['first part', 'second part']);
    expect(rets(t.split_first('a=b=c', '='))).toEqual(['a', 'b=c']);
  });
  it('gives (s, nil) when not found and (before, "") when the separator ends the text', () => {
    expect(rets(t.split_first('abc', '++'))).toEqual(['abc', undefined]);
    expect(rets(t.split_first('abc===', '==='))).toEqual(['abc', '']);
  });
  it('split_last uses the last occurrence', () => {
    expect(rets(t.split_last('some == text == more', '=='))).toEqual(['some == text ', ' more']);
    expect(rets(t.split_last('no separator here', '++'))).toEqual(['no separator here', undefined]);
  });
  it('nil content gives (nil, nil)', () => {
    expect(rets(t.split_first(undefined, '='))).toEqual([undefined, undefined]);
    expect(rets(t.split_last(undefined, '='))).toEqual([undefined, undefined]);
  });
});

describe('aip.text.split_first_line / split_last_line', () => {
  it('splits on a line that is exactly the separator, excluding that line', () => {
    const s = 'line one\n---\nline two\n---\nline three';
    expect(rets(t.split_first_line(s, '---'))).toEqual(['line one', 'line two\n---\nline three']);
    expect(rets(t.split_last_line(s, '---'))).toEqual(['line one\n---\nline two', 'line three']);
  });
  it('handles separator first, last, absent, and lines that only contain it', () => {
    expect(rets(t.split_first_line('START\ncontent', 'START'))).toEqual(['', 'content']);
    expect(rets(t.split_first_line('content\n====', '===='))).toEqual(['content', '']);
    expect(rets(t.split_first_line('no separator', '---'))).toEqual(['no separator', undefined]);
    expect(rets(t.split_first_line('a ====\n==== b', '===='))).toEqual(['a ====\n==== b', undefined]);
  });
  it('keeps both sides verbatim, including a trailing newline and CRLF line ends', () => {
    expect(rets(t.split_first_line('prompt\n\n====\n> info\n\nanswer\n', '===='))).toEqual(['prompt\n', '> info\n\nanswer\n']);
    expect(rets(t.split_first_line('a\r\n====\r\nb\r\n', '===='))).toEqual(['a', 'b\r\n']);
  });
  it('nil content gives (nil, nil)', () => {
    expect(rets(t.split_first_line(undefined, '===='))).toEqual([undefined, undefined]);
  });
});

describe('aip.text.extract_line_blocks', () => {
  const s = '> Block 1 Line 1\n> Block 1 Line 2\nSome other text\n> Block 2';
  it('extracts runs of prefixed lines, each line ending with "\\n"', () => {
    expect(rets(t.extract_line_blocks(s, { starts_with: '>', extrude: 'content' }))).toEqual([
      ['> Block 1 Line 1\n> Block 1 Line 2\n', '> Block 2\n'],
      'Some other text\n',
    ]);
  });
  it('returns nil as second value without extrude', () => {
    expect(rets(t.extract_line_blocks(s, { starts_with: '>' }))).toEqual([
      ['> Block 1 Line 1\n> Block 1 Line 2\n', '> Block 2\n'],
      undefined,
    ]);
  });
  it('with first = N stops after N blocks and extrudes everything after, block lines included', () => {
    const body = '> info 1\n> info 2\n\nanswer one\n> later info\nmore\n';
    expect(rets(t.extract_line_blocks(body, { starts_with: '>', extrude: 'content', first: 1 }))).toEqual([
      ['> info 1\n> info 2\n'],
      '\nanswer one\n> later info\nmore\n',
    ]);
    expect(rets(t.extract_line_blocks(body, { starts_with: '>', extrude: 'content', first: 2 }))).toEqual([
      ['> info 1\n> info 2\n', '> later info\n'],
      '\nanswer one\nmore\n',
    ]);
  });
  it('requires the options table with starts_with', () => {
    const msg = 'aip.text.extract_line_blocks requires to options with {starts_with = ".."}';
    expect(() => t.extract_line_blocks(s, { extrude: 'content' })).toThrow(msg);
    expect(() => t.extract_line_blocks(s, undefined)).toThrow(msg);
    expect(() => t.extract_line_blocks(undefined, undefined)).toThrow(msg);
  });
  it('nil content gives (nil, nil)', () => {
    expect(rets(t.extract_line_blocks(undefined, { starts_with: '>' }))).toEqual([undefined, undefined]);
  });
});

describe('aip.text escape decoding', () => {
  it('escape_decode decodes named and numeric entities', () => {
    expect(t.escape_decode('&lt;div class=&quot;a&quot;&gt; &amp;amp; &#39;x&#x27; &nbsp;&unknown;')).toBe(
      '<div class="a"> &amp; \'x\' \u00A0&unknown;',
    );
  });
  it('escape_decode_if_needed only decodes text containing &lt;', () => {
    expect(t.escape_decode_if_needed('a &amp; b')).toBe('a &amp; b');
    expect(t.escape_decode_if_needed('&lt;T&gt; &amp; b')).toBe('<T> & b');
    expect(t.escape_decode_if_needed(undefined)).toBeUndefined();
  });
});

describe('aip.text line removal', () => {
  it('remove_first_line(s)', () => {
    expect(t.remove_first_line('a\nb\nc')).toBe('b\nc');
    expect(t.remove_first_line('a\nb\n')).toBe('b\n');
    expect(t.remove_first_line('single')).toBe('');
    expect(t.remove_first_lines('a\nb\nc', 2)).toBe('c');
    expect(t.remove_first_lines('a\nb', 5)).toBe('');
    expect(t.remove_first_lines('a\nb', 0)).toBe('a\nb');
  });
  it('remove_last_line(s), a final newline ending the last line', () => {
    expect(t.remove_last_line('a\nb\nc')).toBe('a\nb');
    expect(t.remove_last_line('a\nb\n')).toBe('a\n');
    expect(t.remove_last_lines('a\nb\nc', 2)).toBe('a');
    expect(t.remove_last_lines('a\nb\nc\n', 2)).toBe('a\n');
    expect(t.remove_last_lines('a', 1)).toBe('');
  });
  it('validates n', () => {
    expect(() => t.remove_first_lines('a', -1)).toThrow(/aip\.text\.remove_first_lines: expected 'n' to be a non-negative integer/);
    expect(t.remove_last_lines(undefined, 2)).toBeUndefined();
  });
});

describe('aip.text misc', () => {
  it('truncate keeps max_len chars and appends the ellipsis only when cut', () => {
    expect(t.truncate('hello world', 5)).toBe('hello');
    expect(t.truncate('hello world', 5, '...')).toBe('hello...');
    expect(t.truncate('hi', 5, '...')).toBe('hi');
    expect(t.truncate('héllo😀x', 6)).toBe('héllo😀');
  });
  it('replace_markers replaces regions in order with strings or {content}', () => {
    const s = 'A <<START>>old1<<END>> B <<START>>old2<<END>> C <<START>>old3<<END>>';
    expect(t.replace_markers(s, ['new1', { content: 'new2' }])).toBe('A new1 B new2 C <<START>>old3<<END>>');
    expect(() => t.replace_markers(s, [42])).toThrow(/section 1/);
  });
  it('ensure adds a missing prefix/suffix only', () => {
    expect(t.ensure('some/dir', { prefix: './', suffix: '/coder-prompt.md' })).toBe('./some/dir/coder-prompt.md');
    expect(t.ensure('./a.md', { prefix: './', suffix: '.md' })).toBe('./a.md');
    expect(t.ensure('x', [])).toBe('x');
  });
  it('ensure_single_trailing_newline and its old name', () => {
    expect(t.ensure_single_trailing_newline('a\n\n\n')).toBe('a\n');
    expect(t.ensure_single_trailing_newline('a')).toBe('a\n');
    expect(t.ensure_single_trailing_newline('')).toBe('\n');
    expect(t.ensure_single_trailing_newline('a  \r\n\r\n')).toBe('a  \n');
    expect(t.ensure_single_ending_newline).toBe(t.ensure_single_trailing_newline);
  });
  it('format_size gives 9-char right-aligned decimal sizes', () => {
    expect(t.format_size(777)).toBe('   777 B ');
    expect(t.format_size(8_777)).toBe('  8.78 KB');
    expect(t.format_size(5_242_880)).toBe('  5.24 MB');
    expect(t.format_size(0)).toBe('     0 B ');
    // simple_fs bubbles up on the raw value, not the rounded one
    expect(t.format_size(999_999)).toBe('1000.00 KB');
    expect(t.format_size(777, 'KB')).toBe('  0.78 KB');
    expect(t.format_size(undefined)).toBeUndefined();
    for (const n of [1, 999, 1000, 123_456, 9_999_999_999]) expect((t.format_size(n) as string).length).toBe(9);
    // an unknown unit counts as bytes (simple_fs SizeUnit::new)
    expect(t.format_size(1, 'PB')).toBe('     1 B ');
    expect(t.format_size(1500, { lowest_unit: 'KB', trim: true })).toBe('1.50 KB');
    expect(() => t.format_size('12')).toThrow(/bytes argument must be a number/);
  });
});
