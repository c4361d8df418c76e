/**
 * The sandbox wraps library functions in Lua (sandbox.lua) and exposes each wrapper through a host C function, the
 * "guard". A C function never loses its caller's frame to a tail call, so its errors can carry the caller's
 * position and call name as the library's own do (luaL_argerror / luaL_where). This module holds the rewrite, shared
 * by both engines: an error the wrapped library raised from a line of the sandbox chunk ("sandbox:N: ...") is
 * placed at the guard's caller instead, with the argument number and function name the caller's call gives.
 */
import { T_STRING } from './conversion.ts';
import type { CallName, LuaApi } from './lua-api.ts';

/** What replaces the start of a relayed message: drop `skip` bytes (all when `all`), put `head` before the rest. */
export interface Relayed {
  skip: number;
  head: string;
  all: boolean;
}

const SANDBOX_AT = /^sandbox:\d+: /;
const BAD_ARG = /^bad argument #(\d+) to '[^']*'/;
/** bytes of a message enough to read its sandbox position and "bad argument" head */
export const RELAY_HEAD_BYTES = 256;

/**
 * `start`: the first bytes of the error (latin1). Undefined when the error is not the library's own (a callback's
 * or a limit's error passes unchanged). `globalName`: the name Lua finds for the function in the loaded tables
 * ("string.rep"), used when the call has no name (called from pcall, say).
 */
export function relayedError(start: string, call: CallName, globalName: string): Relayed | undefined {
  const at = SANDBOX_AT.exec(start);
  if (!at) return undefined;
  const skip = at[0].length;
  const bad = BAD_ARG.exec(start.slice(skip));
  if (!bad) return { skip, head: '', all: false };
  let arg = Number(bad[1]);
  const name = call.name ?? globalName;
  if (call.namewhat === 'method') {
    arg--;
    // the object a method was called on is not an argument (luaL_argerror)
    if (arg === 0) return { skip, head: `calling '${name}' on bad self`, all: true };
  }
  return { skip: skip + bad[0].length, head: `bad argument #${arg} to '${name}'`, all: false };
}

/**
 * The guard's answer to a failed call of its wrapper, the error value on top of the stack: raised again, placed at
 * the guard's caller when it is the library's own error, else as it is. Messages keep their bytes.
 */
export function relayLibraryError<L>(api: LuaApi<L>, L: L, globalName: string): never {
  if (api.type(L, -1) !== T_STRING) return api.error(L);
  const message = api.gettop(L);
  const relayed = relayedError(api.head(L, message, RELAY_HEAD_BYTES), api.callName(L), globalName);
  if (!relayed) return api.error(L);
  api.where(L, 1);
  api.pushstring(L, relayed.head);
  if (relayed.all) {
    api.concat(L, 2);
  } else {
    api.pushtail(L, message, relayed.skip);
    api.concat(L, 3);
  }
  return api.error(L);
}
