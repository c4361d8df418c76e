/**
 * `aip.uuid.*` (docs/aipack.md section 7.9): v4/v7 ids, hyphenated or encoded (b64 = standard with padding,
 * b64u = URL-safe without padding, b58 = Bitcoin alphabet), and the time inside v1/v6/v7 ids.
 */
import { parse as uuidParse, v4, v7 } from 'uuid';
import type { AipNamespaceFactory } from './types.ts';
import { withArgChecks } from './arg-checks.ts';
import { clock } from './time.ts';
import { sharedNamespace } from './shared-namespace.ts';

const B58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function base58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = B58_ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  // each leading zero byte is written as the first alphabet char
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out = B58_ALPHABET[0] + out;
  return out;
}

// v7 time comes from the injectable clock, so ids follow a simulated "now"
const newV7 = (): string => v7({ msecs: clock.now().getTime() });

const bytesOf = (id: string): Uint8Array => uuidParse(id);
const b64 = (id: string): string => Buffer.from(bytesOf(id)).toString('base64');
const b64u = (id: string): string => Buffer.from(bytesOf(id)).toString('base64url');
const b58 = (id: string): string => base58(bytesOf(id));

/** The 16 bytes of a UUID in any of Rust `Uuid::parse_str`'s forms (hyphenated, simple, braced, urn); else undefined. */
function uuidBytes(text: string): Uint8Array | undefined {
  let s = text;
  if (s.toLowerCase().startsWith('urn:uuid:')) s = s.slice(9);
  else if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  let hex: string;
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)) hex = s.replace(/-/g, '');
  else if (/^[0-9a-fA-F]{32}$/.test(s)) hex = s;
  else return undefined;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

// 100-ns intervals between the Gregorian epoch (1582-10-15) and the Unix epoch
const GREGORIAN_OFFSET = 0x01b21dd213814000n;

/** Milliseconds since the Unix epoch for v1/v6/v7 UUIDs; undefined for other versions or invalid text. */
function uuidTimeMs(text: string): number | undefined {
  const b = uuidBytes(text);
  if (!b) return undefined;
  const big = (from: number, to: number): bigint => {
    let n = 0n;
    for (let i = from; i < to; i++) n = (n << 8n) | BigInt(b[i]);
    return n;
  };
  const version = b[6] >> 4;
  if (version === 7) return Number(big(0, 6));
  let ticks: bigint;
  if (version === 1) {
    const timeLow = big(0, 4);
    const timeMid = big(4, 6);
    const timeHi = big(6, 8) & 0x0fffn;
    ticks = (timeHi << 48n) | (timeMid << 32n) | timeLow;
  } else if (version === 6) {
    const timeHigh = big(0, 4);
    const timeMid = big(4, 6);
    const timeLow = big(6, 8) & 0x0fffn;
    ticks = (timeHigh << 28n) | (timeMid << 12n) | timeLow;
  } else {
    return undefined;
  }
  return Number((ticks - GREGORIAN_OFFSET) / 10000n);
}

function to_time_epoch_ms(value: string | undefined): number | undefined {
  return value === undefined ? undefined : uuidTimeMs(value);
}

const UUID = withArgChecks('uuid', {
  new: () => v4(),
  new_v4: () => v4(),
  new_v7: () => newV7(),
  new_v4_b64: () => b64(v4()),
  new_v4_b64u: () => b64u(v4()),
  new_v4_b58: () => b58(v4()),
  new_v7_b64: () => b64(newV7()),
  new_v7_b64u: () => b64u(newV7()),
  new_v7_b58: () => b58(newV7()),
  to_time_epoch_ms,
});

export const uuid: AipNamespaceFactory = sharedNamespace(UUID);
