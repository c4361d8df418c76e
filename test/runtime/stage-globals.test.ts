import { describe, expect, it } from 'vitest';
import { parseMocksToml } from '../../src/runtime/mocks.ts';
import { runLua } from '../helpers/lua.ts';

const probe = `return {
  utils_is_aip = utils == aip,
  aipack_is_flow = aipack ~= nil and aipack == aip.flow,
  has_null = null ~= nil,
  ctx_stage = CTX.STAGE,
  merge = type(aip.lua.merge),
}`;

describe('the globals of a stage', () => {
  it('follow the version: utils always, aipack up to 0.8.0, null from 0.8.1, the prelude helpers', () => {
    expect(runLua(probe, { aipackVersion: '0.8.0' }).value).toEqual({ utils_is_aip: true, aipack_is_flow: true, has_null: false, ctx_stage: 'AfterAll', merge: 'nil' });
    expect(runLua(probe, { aipackVersion: '0.8.15' }).value).toEqual({ utils_is_aip: true, aipack_is_flow: false, has_null: true, ctx_stage: 'AfterAll', merge: 'function' });
  });

  it('apply the mocks: a function stub returns its value, a constant stub is the value', () => {
    const mocks = parseMocksToml('"aip.text.trim" = "stubbed"\n"aip.web.UA_AIPACK" = "ua"\n', 'mocks.toml');
    expect(runLua('return { aip.text.trim("  x  "), aip.web.UA_AIPACK }', { mocks }).value).toEqual(['stubbed', 'ua']);
  });
});
