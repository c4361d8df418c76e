/**
 * wasmoon's WebAssembly build of Lua 5.4, loaded once per process with its raw exports.
 *
 * wasmoon's emscripten glue wraps every export in an assertion shim (a runtime-initialised check and a message
 * built per call, then `raw.apply(null, arguments)`), which costs a third of a data-heavy run, and it keeps the raw
 * exports in a closure. So the glue (wasmoon's own `main` file, unchanged) is evaluated here with `WebAssembly`
 * bound to a namespace of our own, whose `instantiate` hands back the instance it makes; every other member is the
 * real one. Nothing global is read differently or changed: the binding is a parameter of that one evaluation.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import nodePath from 'node:path';
import vm from 'node:vm';
import type { LuaFactory as LuaFactoryType } from 'wasmoon';

type Fn = (...args: any[]) => any;
export interface WasmModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  addFunction(fn: Fn, signature: string): number;
  [name: `_${string}`]: Fn;
}

const require = createRequire(import.meta.url);
const MODULE_IMPORT = "import('module')";

/** The emscripten module, its `_name` members the raw exports where wasmoon's glue has a shim of that name. */
export async function loadLuaModule(): Promise<WasmModule> {
  const file = require.resolve('wasmoon');
  let instance: WebAssembly.Instance | undefined;
  const wasm = Object.create(WebAssembly, {
    instantiate: {
      value: async (...args: Parameters<typeof WebAssembly.instantiate>) => {
        const made = (await WebAssembly.instantiate(...args)) as WebAssembly.WebAssemblyInstantiatedSource | WebAssembly.Instance;
        instance = made instanceof WebAssembly.Instance ? made : made.instance;
        return made;
      },
    },
  }) as typeof WebAssembly;
  const module = { exports: {} as { LuaFactory: typeof LuaFactoryType } };
  // the glue is a UMD file: given `exports` and `module`, it fills them as CommonJS would
  // Its one dynamic import (of 'module', for createRequire) is made from here: code compiled at run time has no
  // module of its own to import from (under a test runner's module loader, say).
  const parts = readFileSync(file, 'utf8').split(MODULE_IMPORT);
  if (parts.length !== 2) throw new Error(`wasmoon: ${file} is not the build this engine was written for (wasmoon 1.16.0)`);
  const evaluate = vm.compileFunction(parts.join('importModule()'), ['exports', 'module', 'require', '__filename', '__dirname', 'WebAssembly', 'importModule'], { filename: file });
  evaluate(module.exports, module, createRequire(file), file, nodePath.dirname(file), wasm, () => import('node:module'));
  const luaWasm = await new module.exports.LuaFactory().getLuaModule();
  const glue = luaWasm.module as unknown as Record<string, unknown>;
  if (!instance) throw new Error('wasmoon: its WebAssembly instance was not seen while loading');
  const raws: PropertyDescriptorMap = {};
  for (const [name, raw] of Object.entries(instance.exports)) {
    // only names the glue wraps (its shims are own data properties)
    if (typeof raw === 'function' && typeof Object.getOwnPropertyDescriptor(glue, `_${name}`)?.value === 'function') {
      raws[`_${name}`] = { value: raw, enumerable: true };
    }
  }
  // made with all its members at once: added one by one, ~150 of them would leave the object in V8's slow
  // dictionary mode, where every `M._lua_*` call and `M.HEAPU8` read paid a lookup of ~15 ns
  return Object.create(glue, raws) as WasmModule;
}
