import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

const U = 'aip_uuid.rs';
const B64 = /^[A-Za-z0-9+/=]+$/;
const B64U = /^[A-Za-z0-9_-]+$/;
const B58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const version = (s: unknown) => Number.parseInt(String(s)[14], 16);
const isUuid = (s: unknown) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(String(s));

const cases: Case[] = [
  { up: `${U}::test_lua_aip_uuid_new_v4_simple`, lua: 'return aip.uuid.new()', check: (v) => expect(isUuid(v) && version(v)).toBe(4) },
  { up: `${U}::test_lua_aip_uuid_new_v4_simple`, lua: 'return aip.uuid.new_v4()', check: (v) => expect(isUuid(v) && version(v)).toBe(4) },
  { up: `${U}::test_lua_aip_uuid_new_v7_simple`, lua: 'return aip.uuid.new_v7()', check: (v) => expect(isUuid(v) && version(v)).toBe(7) },
];
for (const v of ['v4', 'v7']) {
  cases.push(
    {
      up: `${U}::test_lua_aip_uuid_new_${v}_b64_simple`,
      lua: `return aip.uuid.new_${v}_b64()`,
      check: (s) => {
        expect(s).toMatch(B64);
        expect(String(s).length).toBeGreaterThanOrEqual(22);
        expect(String(s).length).toBeLessThanOrEqual(24);
      },
    },
    {
      up: `${U}::test_lua_aip_uuid_new_${v}_b64u_simple`,
      lua: `return aip.uuid.new_${v}_b64u()`,
      check: (s) => {
        expect(s).toMatch(B64U);
        expect(String(s)).toHaveLength(22);
      },
    },
    {
      up: `${U}::test_lua_aip_uuid_new_${v}_b58_simple`,
      lua: `return aip.uuid.new_${v}_b58()`,
      check: (s) => {
        expect(s).toMatch(B58);
        expect(String(s).length).toBeGreaterThanOrEqual(21);
        expect(String(s).length).toBeLessThanOrEqual(23);
      },
    },
  );
}
// a v7 id made here with a known time (upstream makes one with uuid_extra and reads its timestamp)
const ms = 1_700_000_000_123;
const hex = ms.toString(16).padStart(12, '0');
const v7 = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7abc-8def-0123456789ab`;
cases.push(
  { up: `${U}::test_lua_aip_uuid_to_time_epoch_ms_nil_input`, lua: 'return aip.uuid.to_time_epoch_ms(nil)', expect: undefined },
  { up: `${U}::test_lua_aip_uuid_to_time_epoch_ms_invalid_uuid_string`, lua: "return aip.uuid.to_time_epoch_ms('not-a-valid-uuid')", expect: undefined },
  { up: `${U}::test_lua_aip_uuid_to_time_epoch_ms_v4_uuid`, lua: "return aip.uuid.to_time_epoch_ms('9b2c4c0e-3f5a-4d6b-8e7f-112233445566')", expect: undefined },
  { up: `${U}::test_lua_aip_uuid_to_time_epoch_ms_v7_uuid`, lua: `return aip.uuid.to_time_epoch_ms('${v7}')`, expect: ms },
);

conformance('aip.uuid', cases);
