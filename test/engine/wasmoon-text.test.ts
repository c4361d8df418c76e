/** Strings in the WebAssembly memory decoded as JS strings (wasmoon-text.ts). */
import { describe, expect, it } from 'vitest';
import { BIG_STRING } from '../../src/engine/big-strings.ts';
import { M, mallocBytes } from '../../src/engine/wasmoon-bridge.ts';
import { decodeAt } from '../../src/engine/wasmoon-text.ts';

const decodeBytes = (bytes: Uint8Array): string => {
  const p = mallocBytes(bytes);
  try {
    return decodeAt(p, bytes.length);
  } finally {
    M._free(p);
  }
};
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('decodeAt', () => {
  it('decodes UTF-8 of every length class: short ASCII, short non-ASCII, medium, big', () => {
    for (const s of ['', 'a', 'name', 'x'.repeat(32), 'x'.repeat(33), 'été ✓', '✓'.repeat(20), 'y'.repeat(BIG_STRING + 5)]) {
      expect(decodeBytes(utf8(s))).toBe(s);
    }
  });

  it('turns invalid UTF-8 into U+FFFD and keeps a leading BOM, as the decoder everywhere else does', () => {
    expect(decodeBytes(new Uint8Array([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
    expect(decodeBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('\ufeffa');
  });

  it('gives each string back whatever other strings took its cache slot before', () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`);
    for (let round = 0; round < 2; round++) for (const w of words) expect(decodeBytes(utf8(w))).toBe(w);
  });
});
