import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

// aip_hash.rs: every algorithm and encoding of "hello world", and nil in -> nil out
const F = 'aip_hash.rs';
const H = 'hello world';
const cases: Case[] = [
  ['sha256_hex', 'sha256', 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9'],
  ['sha256_b58', 'sha256_b58', 'DULfJyE3WQqNxy3ymuhAChyNR3yufT88pmqvAazKFMG4'],
  ['sha256_b64', 'sha256_b64', 'uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek='],
  ['sha256_b64u', 'sha256_b64u', 'uU0nuZNNPgilLlLX2n2r-sSE7-N6U4DukIj3rOLvzek'],
  ['sha512_hex', 'sha512', '309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f'],
  ['sha512_b58', 'sha512_b58', 'yP4cqy7jmaRDzC2bmcGNZkuQb3VdftMk6YH7ynQ2Qw4zktKsyA9fk52xghNQNAdkpF9iFmFkKh2bNVG4kDWhsok'],
  ['sha512_b64', 'sha512_b64', 'MJ7MSJwS1utMxA9QyQLytNDtd+5RGnx6m808qG1M2G+YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw=='],
  ['sha512_b64u', 'sha512_b64u', 'MJ7MSJwS1utMxA9QyQLytNDtd-5RGnx6m808qG1M2G-YndNbxf9JlnDaNCVbRbDP2DDoH2Bdz33FVC6TrpzXbw'],
  ['blake3_hex', 'blake3', 'd74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24'],
  ['blake3_b58', 'blake3_b58', 'FVPfbg9bK7mj7jnaSRXhuVcVakkXcjMPgSwxmauUofYf'],
  ['blake3_b64', 'blake3_b64', '10mB76cKDIgLjYwZhdB128v2ebmaX5kU5ar5a4ManiQ='],
  ['blake3_b64u', 'blake3_b64u', '10mB76cKDIgLjYwZhdB128v2ebmaX5kU5ar5a4ManiQ'],
].map(([test, fn, want]) => ({ up: `${F}::test_lua_hash_${test}`, lua: `return aip.hash.${fn}("${H}")`, expect: want }));

for (const algo of ['sha256', 'sha512', 'blake3']) {
  cases.push({ up: `${F}::test_lua_hash_${algo}_hex_nil_input`, lua: `return aip.hash.${algo}(nil)`, expect: undefined });
}

// The file hashes (file_hash.rs has no tests of its own): the same digests of a file holding "hello world".
// `_b58u` is the Base58 of aip.hash's `_b58`; a missing file raises AIPack's "Failed to hash file" error.
const files = { 'hash-me.txt': H };
for (const [fn, same] of [['hash_sha256', 'sha256'], ['hash_sha512_b64u', 'sha512_b64u'], ['hash_blake3_b58u', 'blake3_b58'], ['hash_blake3_b64', 'blake3_b64']]) {
  cases.push({
    up: `${F}::test_lua_hash_${same.replace(/^(\w+?)$/, '$1_hex')} (file variant aip.file.${fn})`,
    lua: `return aip.file.${fn}("hash-me.txt") == aip.hash.${same}("${H}")`,
    files,
    expect: true,
  });
}
cases.push({
  up: 'file_hash.rs::hash_path_to_lua_value (error text)',
  lua: 'return aip.file.hash_blake3("no/such-file.txt")',
  error: ["aip.file.hash_blake3 - Failed to hash file 'no/such-file.txt'"],
});
cases.push({
  up: 'aip_hash.rs::lua_sha256 (into_option_string error text)',
  lua: 'local ok, err = pcall(aip.hash.sha256, 12) return tostring(err)',
  check: (v) => expect(v).toContain('aip.hash.sha256 - accepted argument types are String or Nil'),
});

conformance('aip.hash', cases);
