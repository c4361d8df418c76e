/**
 * Strings in the WebAssembly memory as JS strings: the bytes of a Lua string decoded as UTF-8 (invalid sequences
 * become U+FFFD, a leading BOM is kept), read through the C API (wasmoon-bridge.ts toStr) or in place
 * (wasmoon-direct-reader.ts).
 */
import { BIG_STRING, bigStringOf } from './big-strings.ts';
import { M } from './wasmoon-instance.ts';

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Short ASCII strings decoded before, by a hash of their bytes (one slot each, the last one decoded): a table's keys
 * and enum-like values come back in every conversion, and a lookup checked against the bytes costs less than
 * making the string again.
 */
const SHORT = 32;
const SHORT_SLOTS = 4096;
const shortDecoded: (string | undefined)[] = new Array(SHORT_SLOTS).fill(undefined);

/** The JS string of the `n` bytes at `p` (`heap`: the memory's current byte view, when the caller has it). */
export function decodeAt(p: number, n: number, heap: Uint8Array = M.HEAPU8): string {
  if (n <= SHORT) {
    // short strings: a loop beats TextDecoder's call overhead when they are ASCII
    let hash = n;
    for (let i = p; i < p + n; i++) {
      const c = heap[i];
      if (c >= 0x80) return decoder.decode(heap.subarray(p, p + n));
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    const slot = hash & (SHORT_SLOTS - 1);
    const known = shortDecoded[slot];
    if (known !== undefined && known.length === n) {
      let i = 0;
      while (i < n && known.charCodeAt(i) === heap[p + i]) i++;
      if (i === n) return known;
    }
    const s = String.fromCharCode.apply(null, heap.subarray(p, p + n) as unknown as number[]);
    shortDecoded[slot] = s;
    return s;
  }
  if (n >= BIG_STRING) return bigStringOf(heap.subarray(p, p + n), (b) => decoder.decode(b));
  return decoder.decode(heap.subarray(p, p + n));
}
