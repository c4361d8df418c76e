import { afterEach, describe, expect, it } from 'vitest';
import { parse as uuidParse, version as uuidVersion } from 'uuid';
import { base58, uuid } from '../../src/aip/uuid.ts';
import { clock } from '../../src/aip/time.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const u = uuid({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;
const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const originalNow = clock.now;
afterEach(() => {
  clock.now = originalNow;
});

describe('aip.uuid', () => {
  it('new / new_v4 / new_v7 give hyphenated ids of the right version', () => {
    for (const [fn, v] of [['new', 4], ['new_v4', 4], ['new_v7', 7]] as const) {
      const id = u[fn]() as string;
      expect(id).toMatch(HYPHENATED);
      expect(uuidVersion(id)).toBe(v);
    }
    expect(u.new()).not.toBe(u.new());
  });

  it('encodes 16 bytes as b64 (padded), b64u (no padding) and b58', () => {
    expect(u.new_v4_b64()).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(u.new_v7_b64u()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(u.new_v4_b58()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16,22}$/);
  });

  it('base58 follows the Bitcoin alphabet, leading zero bytes as "1"', () => {
    expect(base58(Uint8Array.from([0, 0, 1]))).toBe('112');
    expect(base58(new TextEncoder().encode('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    expect(base58(uuidParse('00000000-0000-0000-0000-000000000000'))).toBe('1'.repeat(16));
  });

  it('to_time_epoch_ms reads v7 (from the injectable clock), v1 and v6 ids', () => {
    clock.now = () => new Date('2025-08-23T14:35:12.345Z');
    const id = u.new_v7() as string;
    expect(u.to_time_epoch_ms(id)).toBe(Date.parse('2025-08-23T14:35:12.345Z'));
    expect(u.to_time_epoch_ms(id.replace(/-/g, '').toUpperCase())).toBe(Date.parse('2025-08-23T14:35:12.345Z'));
    // RFC 9562 test vectors: 2022-02-22T19:22:22Z (minus the 100-ns remainder)
    expect(u.to_time_epoch_ms('C232AB00-9414-11EC-B3C8-9F6BDECED846')).toBe(Date.parse('2022-02-22T19:22:22Z'));
    expect(u.to_time_epoch_ms('1EC9414C-232A-6B00-B3C8-9F6BDECED846')).toBe(Date.parse('2022-02-22T19:22:22Z'));
  });

  it('to_time_epoch_ms gives nil for v4, invalid text and nil', () => {
    expect(u.to_time_epoch_ms(u.new_v4())).toBeUndefined();
    expect(u.to_time_epoch_ms('not-a-uuid')).toBeUndefined();
    expect(u.to_time_epoch_ms(undefined)).toBeUndefined();
  });
});
