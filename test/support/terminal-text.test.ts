import { describe, expect, it } from 'vitest';
import { escapeControls, escapeLine, jsonText, terminalSafe, xmlText } from '../../src/support/terminal-text.ts';

describe('terminal text', () => {
  it('escapeControls shows control characters (cursor moves, CR, bidi overrides) but keeps newline and tab', () => {
    expect(escapeControls('ok\n\t\u001b[2Jx\ry\u202e')).toBe('ok\n\t\\x1b[2Jx\\ry\\u{202e}');
    expect(escapeLine('a\nb\tc')).toBe('a\\nb\\tc');
  });

  it("terminalSafe keeps only the CLI's own colour codes when colours are on", () => {
    const text = '\u001b[31mred\u001b[39m \u001b[2Kerase';
    expect(terminalSafe(text, true)).toBe('\u001b[31mred\u001b[39m \\x1b[2Kerase');
    expect(terminalSafe(text, false)).toBe('\\x1b[31mred\\x1b[39m \\x1b[2Kerase');
  });

  it('xmlText escapes what XML 1.0 cannot hold, then the markup', () => {
    expect(xmlText('<a b="1">&\u0001\uD800</a>')).toBe('&lt;a b=&quot;1&quot;&gt;&amp;\\x01\\u{d800}&lt;/a&gt;');
  });
});

describe('report text', () => {
  it('xmlText writes tab, newline and carriage return as character references, the other controls visibly', () => {
    expect(xmlText('a\tb\nc\rd')).toBe('a&#9;b&#10;c&#13;d');
    expect(xmlText('\u007f\u009b\u2028\u202e')).toBe('\\x7f\\x9b\\u{2028}\\u{202e}');
  });
  it('jsonText escapes the controls JSON.stringify leaves raw, and parses back to the same value', () => {
    const v = { s: 'a\u007f\u009b\u2028\u2029\u202e\u2066\n\u001b' };
    const text = jsonText(v, 2);
    expect(text).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('\\u009b');
    expect(JSON.parse(text)).toEqual(v);
  });
  it('escapeControls shows the line and paragraph separators', () => {
    expect(escapeControls('a\u2028b\u2029c\nd')).toBe('a\\u{2028}b\\u{2029}c\nd');
  });
});
