/**
 * Big strings seen recently by a bridge, as both JS string and UTF-8 bytes. A value passed down a chain of
 * sub-agents and back (a 1 MB prompt) crosses the bridge twice per call; with this it is encoded and decoded once,
 * and every crossing gives back the same JS string, so the trace, the caller and the callee share one copy instead
 * of holding one per call. Bounded in bytes; the oldest entries go first.
 */
export const BIG_STRING = 16 * 1024;
const MAX_BYTES = 64 * 1024 * 1024;

interface Entry {
  readonly str: string;
  readonly bytes: Uint8Array;
}

const byString = new Map<string, Entry>();
const byLength = new Map<number, Entry[]>();
let total = 0;

function remember(entry: Entry): Entry {
  byString.set(entry.str, entry);
  const same = byLength.get(entry.bytes.length);
  if (same) same.push(entry);
  else byLength.set(entry.bytes.length, [entry]);
  total += entry.bytes.length;
  for (const old of byString.values()) {
    if (total <= MAX_BYTES || byString.size <= 1) break;
    byString.delete(old.str);
    const list = byLength.get(old.bytes.length) as Entry[];
    list.splice(list.indexOf(old), 1);
    if (list.length === 0) byLength.delete(old.bytes.length);
    total -= old.bytes.length;
  }
  return entry;
}

/** The UTF-8 bytes of a big JS string (do not change them). */
export function bigStringBytes(str: string, encode: (s: string) => Uint8Array): Uint8Array {
  return (byString.get(str) ?? remember({ str, bytes: encode(str) })).bytes;
}

/** The JS string of big UTF-8 bytes: the one already made from equal bytes, else `decode`d (bytes are copied). */
export function bigStringOf(bytes: Uint8Array, decode: (b: Uint8Array) => string): string {
  for (const entry of byLength.get(bytes.length) ?? []) {
    if (Buffer.compare(entry.bytes, bytes) === 0) return entry.str;
  }
  const str = decode(bytes);
  // invalid UTF-8 (replaced by U+FFFD) does not come back from the string: only exact round trips are kept
  if (str.includes('\uFFFD') || byString.has(str)) return str;
  return remember({ str, bytes: bytes.slice() }).str;
}
