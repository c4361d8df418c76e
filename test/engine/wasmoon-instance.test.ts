/** The process's one wasmoon instance (wasmoon-instance.ts). */
import { describe, expect, it } from 'vitest';
import { M as bridgeM } from '../../src/engine/wasmoon-bridge.ts';
import { M } from '../../src/engine/wasmoon-instance.ts';

describe('wasmoon instance', () => {
  it('is loaded once and shared: the bridge hands out the same module, with its raw exports and memory views', () => {
    expect(bridgeM).toBe(M);
    expect(typeof M._lua_gettop).toBe('function');
    expect(M.HEAPU8.buffer).toBe(M.HEAPU32.buffer);
    const L = M._luaL_newstate() as number;
    try {
      expect(M._lua_gettop(L)).toBe(0);
    } finally {
      M._lua_close(L);
    }
  });
});
