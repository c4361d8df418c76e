import { describe, expect, it } from 'vitest';
import { digest, encode, hash } from '../../src/aip/hash.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import type { HostFns } from '../helpers/file-workspace.ts';

const h = hash({} as StageEnv) as HostFns;

describe('aip.hash', () => {
  it('digests strings and encodes them as hex, Base58, Base64 and URL-safe Base64', () => {
    expect(h.sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(h.sha256_b64('abc')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');
    expect(h.sha256_b64u('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(h.blake3('')).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(h.sha512('abc')).toMatch(/^ddaf35a193617aba/);
  });

  it('nil gives nil; other types are refused with AIPack wording', () => {
    expect(h.sha256(undefined)).toBeUndefined();
    expect(() => h.sha256_b58(1)).toThrow('aip.hash.sha256_b58 - accepted argument types are String or Nil, but was number');
  });

  it('digest and encode work on bytes', () => {
    expect(encode(digest('sha256', new Uint8Array()), 'hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(encode(new Uint8Array([0, 0, 1]), 'b58')).toBe('112');
  });
});
