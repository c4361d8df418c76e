/**
 * Text from agents, case files and file names shown in a terminal: control characters would let it move the
 * cursor, erase lines or draw a fake summary over a failure, so they are shown as visible escapes instead.
 */

// C0 controls but \t and \n, DEL, C1 controls, the line and paragraph separators (a new line to some readers), and
// the bidirectional overrides that reorder what is shown
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
const CONTROL_OR_LAYOUT = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

const visible = (ch: string): string => {
  const code = ch.charCodeAt(0);
  if (ch === '\r') return '\\r';
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
};

/** `text` with every control character (ESC, CR, C1, ...) but newline and tab written as `\x1b`, `\r`, ... */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Like escapeControls, for one-line fields (names, paths): newline and tab are escaped too. */
export function escapeLine(text: string): string {
  return text.replace(CONTROL_OR_LAYOUT, visible);
}

/**
 * Text for XML attributes and elements: characters XML 1.0 forbids (most C0 controls, lone surrogates,
 * U+FFFE/U+FFFF) and the other controls (DEL, C1, line separators, bidirectional overrides) written as visible
 * escapes, the markup characters as entities, and tab, newline and carriage return as character references: a
 * parser reads them back, but none is a raw line of the file (a case name cannot plant a line in the report).
 */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (ch) =>
      ch.charCodeAt(0) <= 0xff ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u{${ch.charCodeAt(0).toString(16)}}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\t\n\r]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * JSON text of `value` with every control character escaped: JSON.stringify escapes C0 controls only, so DEL,
 * C1 controls (a terminal reads U+009B as CSI), line separators and bidirectional overrides are written as
 * `\uXXXX` too. It parses back to the same value.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(/[\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The colour codes the CLI's own output uses (bold, dim, red, green, yellow, magenta, cyan and their resets). */
const OWN_SGR = /(\u001b\[(?:1|2|22|31|32|33|35|36|39)m)/;

/**
 * A chunk written to the terminal: escapeControls, except the colour codes the CLI itself emits when `colours`
 * is on (text can at most colour itself with them: no cursor move, no erase, no hiding).
 */
export function terminalSafe(chunk: string, colours: boolean): string {
  if (!colours) return escapeControls(chunk);
  return chunk
    .split(OWN_SGR)
    .map((part, i) => (i % 2 === 1 ? part : escapeControls(part)))
    .join('');
}
