/**
 * Differential test of lua54 against native Lua 5.4 (lua5.4, installed in CI): seeded random expressions over the
 * string library, string.format, number edge cases, table.concat/sort and utf8 must give the same values; wording
 * differences of errors are printed. The lua54 project runs it; without lua5.4 it is skipped with the reason.
 * bench/differential.bench.ts runs 10,000 expressions for the figures. DIFF_SEED replays a seed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { onLua54, testEngine } from '../helpers/engine.ts';
import { compare, expressionGenerator, NATIVE_LUA, nativeLuaAvailable, runNative, runOnEngine, type Difference } from '../helpers/lua-differential.ts';

const SEED = process.env.DIFF_SEED !== undefined ? Number(process.env.DIFF_SEED) : Math.floor(Math.random() * 2 ** 31);
const COUNT = 300;
const native = nativeLuaAvailable();
if (onLua54 && !native) console.log(`differential test skipped: ${NATIVE_LUA} is not installed`);

// Debian's lua5.4 is 5.4.4; the sandbox runs a later 5.4 (as AIPack does), whose utf8.codes rejects a stray
// continuation byte: those expressions may differ against a 5.4.4 reference only.
const nativeVersion = native ? execFileSync(NATIVE_LUA, ['-v']).toString() : '';
const versionOnly = (d: Difference) => /Lua 5\.4\.[0-4]\b/.test(nativeVersion) && d.expr.includes('utf8.codes');
const show = (ds: Difference[]) => ds.map((d) => `${d.expr}\n  lua54:  ${d.ours}\n  native: ${d.native}`).join('\n');

describe.runIf(onLua54 && native)(`lua54 = native Lua 5.4 on random expressions (seed ${SEED})`, () => {
  it(`gives the same values on ${COUNT} expressions; wording differences are reported`, () => {
    const next = expressionGenerator(SEED);
    const exprs = Array.from({ length: COUNT }, next);
    const result = compare(exprs, runOnEngine(testEngine, exprs), runNative(exprs));
    const values = result.values.filter((d) => !versionOnly(d));
    if (result.limits.length > 0) console.log(`seed ${SEED}: ${result.limits.length} stopped by a sandbox limit\n${show(result.limits)}`);
    if (result.wording.length > 0) console.log(`seed ${SEED}: ${result.wording.length} wording differences\n${show(result.wording)}`);
    expect(show(values)).toBe('');
    // the generator reaches every family of calls, so the comparison is not vacuous
    expect(exprs.some((e) => e.includes('string.format'))).toBe(true);
    expect(result.total).toBe(COUNT);
  });

  it('keeps outcomes in step when an expression prints (native print writes to stdout, the sandbox one nowhere)', () => {
    const exprs = ['string.gsub("hello", ".", print)', 'string.upper("x")'];
    const native = runNative(exprs);
    expect(native).toEqual(['V "hello",i5', 'V "X"']);
    expect(compare(exprs, runOnEngine(testEngine, exprs), native).values).toEqual([]);
  });
});
