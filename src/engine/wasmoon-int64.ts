/**
 * The lua_Integer arguments of lua54's C API (lua_pushinteger, lua_rawgeti, lua_rawseti): wasm32's i64 is a BigInt
 * in JS, and making one per call (every list item the conversion sets or reads) was a heap allocation each. The
 * small ones, which list indexes and most numbers are, are made once.
 */
const SMALL = 4096;
const small: bigint[] = Array.from({ length: SMALL }, (_, i) => BigInt(i));

/** `BigInt(n)` of an integer `n`, without allocating one for 0 <= n < 4096 */
export const int64 = (n: number): bigint => (n >= 0 && n < SMALL ? (small[n] as bigint) : BigInt(n));
