/**
 * Precompiled fengari chunks for the simulator's own Lua: the sandbox, the prelude, the put-back and the pack's
 * `lua/` modules. fengari parses Lua in JavaScript, and the first parses of a process run before the JIT has
 * compiled the parser: ~100 ms for these sources, on every CLI run and every contract test. Loading their
 * bytecode instead takes a few milliseconds.
 *
 * The build writes the bundle (`scripts/precompile-fengari.mjs` -> `dist/engine/fengari-chunks.json`): each
 * chunk's bytecode under the SHA-1 of its exact source. At load time a chunk is served from the bundle only when its
 * source hashes to a key there, so an edited module, an agent or a user's pack is parsed as before; the bytecode is
 * dumped with its debug information, and its source name is set to the chunk name it is loaded under, so error
 * messages and tracebacks read as for a parsed chunk. Without the bundle (a source checkout run through tsx, or a
 * bundle another fengari wrote) every chunk is parsed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { jsString, luaBytes } from './fengari-bridge.ts';
import { lauxlib, lua, luaString, protoOf, setProtoSource, to_luastring, type LuaState } from './fengari-vm.ts';

/** The bundle as the build writes it. */
export interface ChunkBundle {
  /** the fengari version that compiled it: bytecode of another version is not loaded */
  fengari: string;
  /** bytecode (base64) by the SHA-1 (hex) of the source's UTF-8 bytes */
  chunks: Record<string, string>;
}

const FENGARI_VERSION = (createRequire(import.meta.url)('fengari/package.json') as { version: string }).version;
const BUNDLE_FILE = new URL('./fengari-chunks.json', import.meta.url);

/** The key of a source in the bundle. */
export function sourceKey(code: string | Uint8Array): string {
  return createHash('sha1').update(code).digest('hex');
}

/** A source to precompile and the name its compile errors give. */
export interface ChunkSource {
  name: string;
  code: string | Uint8Array;
}

/** Compiles each source (as text, with its debug information) to fengari bytecode. Throws on a syntax error. */
export function compileBundle(sources: readonly ChunkSource[]): ChunkBundle {
  const L = lauxlib.luaL_newstate();
  const chunks: Record<string, string> = {};
  for (const { name, code } of sources) {
    if (lauxlib.luaL_loadbufferx(L, typeof code === 'string' ? luaBytes(code) : code, null, luaBytes(`=${name}`), to_luastring('t')) !== lua.LUA_OK) {
      throw new Error(`precompiling ${name}: ${jsString(L, -1)}`);
    }
    const parts: Uint8Array[] = [];
    lua.lua_dump(L, (_L: LuaState, part: Uint8Array, size: number) => (parts.push(part.slice(0, size)), 0), null, false);
    lua.lua_pop(L, 1);
    chunks[sourceKey(code)] = Buffer.concat(parts).toString('base64');
  }
  return { fengari: FENGARI_VERSION, chunks };
}

/** bytecode by source key; null: no usable bundle; undefined: not looked for yet */
let bundle: Map<string, Uint8Array> | null | undefined;

/** Uses `b` as the bundle (a test's, or none with null); by default the build's file is read at the first need. */
export function usePrecompiled(b: ChunkBundle | null): void {
  bundle = b && b.fengari === FENGARI_VERSION ? new Map(Object.entries(b.chunks).map(([k, v]) => [k, Buffer.from(v, 'base64')])) : null;
}

function bytecodeOf(code: string | Uint8Array): Uint8Array | undefined {
  if (bundle === undefined) usePrecompiled(existsSync(BUNDLE_FILE) ? (JSON.parse(readFileSync(BUNDLE_FILE, 'utf8')) as ChunkBundle) : null);
  // no bundle (a source checkout): no source is hashed
  return bundle ? bundle.get(sourceKey(code)) : undefined;
}

/**
 * Pushes the precompiled function of `code` as `chunkName` would name it, and returns true; false (nothing pushed)
 * when the bundle has no bytecode for this exact source or cannot load it.
 */
export function loadPrecompiled(L: LuaState, code: string | Uint8Array, chunkName: string): boolean {
  const bytecode = bytecodeOf(code);
  if (!bytecode) return false;
  if (lauxlib.luaL_loadbufferx(L, bytecode, null, luaBytes(chunkName), to_luastring('b')) !== lua.LUA_OK) {
    lua.lua_pop(L, 1);
    return false;
  }
  setProtoSource(protoOf(L), luaString(L, luaBytes(chunkName)));
  return true;
}
