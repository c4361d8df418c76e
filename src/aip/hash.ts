/**
 * `aip.hash.*` and the digests behind `aip.file.hash_*`: SHA-256/512 from node:crypto, BLAKE3 from
 * @noble/hashes; hex, Base58 (Bitcoin alphabet), Base64 and URL-safe Base64 without padding.
 */
import { createHash } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3.js';
import type { AipNamespaceFactory } from './types.ts';
import { base58 } from './uuid.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

export type HashAlgo = 'sha256' | 'sha512' | 'blake3';
export type HashEncoding = 'hex' | 'b58' | 'b64' | 'b64u';

export function digest(algo: HashAlgo, data: Uint8Array | string): Uint8Array {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (algo === 'blake3') return blake3(bytes);
  return new Uint8Array(createHash(algo).update(bytes).digest());
}

export function encode(bytes: Uint8Array, enc: HashEncoding): string {
  const buf = Buffer.from(bytes);
  switch (enc) {
    case 'hex':
      return buf.toString('hex');
    case 'b58':
      return base58(bytes);
    case 'b64':
      return buf.toString('base64');
    case 'b64u':
      return buf.toString('base64url');
  }
}

const SUFFIX: Record<HashEncoding, string> = { hex: '', b58: '_b58', b64: '_b64', b64u: '_b64u' };

const HASHES: Record<string, unknown> = {};
for (const algo of ['sha256', 'sha512', 'blake3'] as const) {
  for (const enc of ['hex', 'b58', 'b64', 'b64u'] as const) {
    HASHES[`${algo}${SUFFIX[enc]}`] = (input: string | undefined): string | undefined =>
      input === undefined ? undefined : encode(digest(algo, input), enc);
  }
}
const CHECKED = withArgChecks('hash', HASHES);

export const hash: AipNamespaceFactory = sharedNamespace(CHECKED);
