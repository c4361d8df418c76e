/**
 * The one instance of wasmoon's Lua 5.4 build in this process (wasmoon-module.ts), shared by the bridge, the C API
 * wrapper and the readers of its memory (top-level await: importing this file loads the engine).
 */
import { loadLuaModule, type WasmModule } from './wasmoon-module.ts';

export const M: WasmModule = await loadLuaModule();
