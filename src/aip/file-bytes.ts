/**
 * `aip.file.*` over a file's raw bytes: its hashes (`hash_<algo>[_b64|_b64u|_b58u]`) and byte spans (of lines,
 * of CSV rows) read back with `read_span`. Every failure is a Lua error with AIPack's wording.
 */
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { FileAccess } from './file-access.ts';
import { digest, encode, type HashAlgo, type HashEncoding } from './hash.ts';
import { resolvePath } from './support/paths.ts';

const N = (name: string) => `aip.file.${name}`;

/** `[start, end)` byte spans of lines ("\n" separated, a "\r" before it excluded). */
export function lineSpans(bytes: Uint8Array): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    spans.push([start, i > start && bytes[i - 1] === 13 ? i - 1 : i]);
    start = i + 1;
  }
  if (start < bytes.length) spans.push([start, bytes.length]);
  return spans;
}

/** Like lineSpans, but a "\n" inside a double-quoted CSV field does not end the row (`""` is an escaped quote). */
function csvRowSpans(bytes: Uint8Array): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  let inQuotes = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 34) {
      if (inQuotes && bytes[i + 1] === 34) i++;
      else inQuotes = !inQuotes;
    } else if (b === 10 && !inQuotes) {
      spans.push([start, i > start && bytes[i - 1] === 13 ? i - 1 : i]);
      start = i + 1;
    }
  }
  if (start < bytes.length) spans.push([start, bytes.length]);
  return spans;
}

export function fileBytes(access: FileAccess): Record<string, unknown> {
  const { env } = access;

  const out: Record<string, unknown> = {};

  // -- hashes: aip.file.hash_<algo>[_b64|_b64u|_b58u]
  const SUFFIX: [string, HashEncoding][] = [['', 'hex'], ['_b64', 'b64'], ['_b64u', 'b64u'], ['_b58u', 'b58']];
  for (const algo of ['sha256', 'sha512', 'blake3'] as HashAlgo[]) {
    for (const [suffix, enc] of SUFFIX) {
      const fn = N(`hash_${algo}${suffix}`);
      out[`hash_${algo}${suffix}`] = (p: string): string => {
        const bytes = access.bytesOf(resolvePath(env, p), (why) => `${fn} - Failed to hash file '${p}'.\nCause: ${why}`);
        return encode(digest(algo, bytes), enc);
      };
    }
  }

  // -- spans
  const spansOf = (fn: string, split: (b: Uint8Array) => [number, number][]) => (p: string) => {
    return split(access.bytesOf(resolvePath(env, p), (why) => `${fn} - Cannot read file '${p}'. Cause: ${why}`));
  };
  out.line_spans = spansOf(N('line_spans'), lineSpans);
  out.csv_row_spans = spansOf(N('csv_row_spans'), csvRowSpans);
  out.read_span = (p: string, start: unknown, end: unknown): string => {
    const fn = N('read_span');
    if (typeof start !== 'number' || typeof end !== 'number' || !Number.isInteger(start) || !Number.isInteger(end)) {
      throw new LuaError(`${fn} - start and end must be integers, got ${luaTypeName(start)} and ${luaTypeName(end)}`);
    }
    if (start < 0 || end < 0) throw new LuaError('read_span expects non-negative start/end offsets');
    if (end < start) throw new LuaError('read_span expects end >= start');
    const bytes = access.bytesOf(resolvePath(env, p), (why) => `${fn} - Cannot read file '${p}'. Cause: ${why}`);
    if (end > bytes.length) throw new LuaError(`${fn} - span [${start}, ${end}) is past the end of '${p}' (${bytes.length} bytes)`);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, end));
    } catch {
      throw new LuaError(`${fn} - span [${start}, ${end}) of '${p}' is not valid UTF-8`);
    }
  };
  return out;
}
