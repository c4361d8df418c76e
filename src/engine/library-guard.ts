/**
 * The sandbox wraps library functions in Lua (sandbox.ts) and exposes each wrapper through a host C function, the
 * "guard". A C function never loses its caller's frame to a tail call, so its errors can carry the caller's
 * position and call name as the library's own do (luaL_argerror / luaL_where). This module holds the rewrite, shared
 * by both engines: an error the wrapped library raised from a line of the sandbox chunk ("sandbox:N: ...") is
 * placed at the guard's caller instead, with the argument number and function name the caller's call gives.
 */

/** How the guard itself was called (lua_getinfo "n" of level 0). */
export interface CallName {
  name: string | null;
  namewhat: string;
}

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
