/** Big strings cross the bridges once (big-strings.ts): one JS string and one byte array per content. */
import { describe, expect, it } from 'vitest';
import { BIG_STRING, bigStringBytes, bigStringOf } from '../../src/engine/big-strings.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

describe('big strings', () => {
  it('gives the same bytes for the same string, encoding once', () => {
    const s = 'é'.repeat(BIG_STRING);
    let encoded = 0;
    const encode = (x: string) => (encoded++, encoder.encode(x));
    const a = bigStringBytes(s, encode);
    expect(bigStringBytes(s.slice(0), encode)).toBe(a);
    expect(encoded).toBe(1);
  });

  it('gives back the JS string a content was made from, and decodes an unseen one once', () => {
    const s = 'x'.repeat(BIG_STRING) + 'known';
    const bytes = bigStringBytes(s, (x) => encoder.encode(x));
    expect(bigStringOf(bytes.slice(), (b) => decoder.decode(b))).toBe(s);
    let decoded = 0;
    const fresh = encoder.encode('y'.repeat(BIG_STRING) + 'fresh');
    const first = bigStringOf(fresh, (b) => (decoded++, decoder.decode(b)));
    expect(bigStringOf(fresh.slice(), (b) => (decoded++, decoder.decode(b)))).toBe(first);
    expect(decoded).toBe(1);
  });

  it('does not keep invalid UTF-8 (it would not come back as the same bytes)', () => {
    const bad = new Uint8Array(BIG_STRING).fill(0xff);
    let decoded = 0;
    const dec = (b: Uint8Array) => (decoded++, decoder.decode(b));
    bigStringOf(bad, dec);
    bigStringOf(bad, dec);
    expect(decoded).toBe(2);
  });
});
