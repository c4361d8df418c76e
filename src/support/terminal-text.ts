/**
 * Text from agents, case files and file names shown in a terminal: control characters would let it move the
 * cursor, erase lines or draw a fake summary over a failure, so they are shown as visible escapes instead.
 */

// C0 controls but \t and \n, DEL, C1 controls, and the bidirectional overrides that reorder what is shown
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
const CONTROL_OR_LAYOUT = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

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
 * Text XML 1.0 can hold: characters it forbids (most C0 controls, lone surrogates, U+FFFE/U+FFFF) written as
 * visible escapes, then the markup characters as entities.
 */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (ch) =>
      ch.charCodeAt(0) <= 0xff ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u{${ch.charCodeAt(0).toString(16)}}`,
    )
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
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
