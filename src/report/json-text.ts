/** Texts longer than this are cut in a report (head kept, the cut said): a report of a huge value stays small. */
export const TEXT_LIMIT = 64 * 1024;

/** `text`, cut to `limit` UTF-16 units with a line saying how much was left out. */
export function capped(text: string, limit = TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… (${text.length - limit} more characters not kept in the report)`;
}

/** A value as the report shows it: pretty JSON (undefined as `nil`), capped; a value JSON cannot hold is said so. */
export function jsonText(value: unknown, limit = TEXT_LIMIT): string {
  if (value === undefined) return 'nil';
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : typeof v === 'function' ? '<function>' : v), 2);
  } catch (err) {
    text = `<not shown: ${(err as Error).message}>`;
  }
  return capped(text ?? 'nil', limit);
}

/** The size of a text in UTF-8 bytes. */
export const byteSize = (text: string): number => Buffer.byteLength(text, 'utf8');
