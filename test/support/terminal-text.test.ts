import { describe, expect, it } from 'vitest';
import { escapeControls, escapeLine, terminalSafe, xmlText } from '../../src/support/terminal-text.ts';

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
