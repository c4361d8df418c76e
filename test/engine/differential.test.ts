/**
 * Differential test of lua54 against native Lua 5.4 (lua5.4, installed in CI): seeded random expressions over the
 * string library, string.format, number edge cases, table.concat/sort and utf8 must give the same values; wording
 * differences of errors are printed. The lua54 project runs it; without lua5.4 it is skipped with the reason.
 * bench/differential.bench.ts runs 10,000 expressions for the figures. DIFF_SEED replays a seed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { onLua54, testEngine } from '../helpers/engine.ts';
import { CHARGED_EDGES, HUGE_IN_FENGARI, compare, expressionGenerator, NATIVE_LUA, nativeLuaAvailable, runNative, runOnEngine, runRawFengari, type Difference } from '../helpers/lua-differential.ts';

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

// Charges never change what Lua does within the budget: on edge arguments of every charged function (huge and
// wrap-around ranges, math.maxinteger/mininteger, negative counts, wrong types) the sandbox raises and returns what
// the reference does, with the same words, and no limit is hit. Only string.rep's size cap (a documented sandbox
// rule) may differ, and only in the words after Lua's own "resulting string too large".
describe('charged functions on edge arguments', () => {
  const check = (exprs: string[], ours: string[], reference: string[]) => {
    const result = compare(exprs, ours, reference);
    expect(show(result.limits)).toBe('');
    expect(show(result.values)).toBe('');
    // Lua 5.4.4's table.remove names its position "#1" (a slip later releases fixed: the sandbox runs one of those)
    const slip = (d: Difference) => /Lua 5\.4\.[0-4]\b/.test(nativeVersion) && d.ours.replace("#2 to 'remove'", "#1 to 'remove'") === d.native;
    expect(show(result.wording.filter((d) => !slip(d)))).toBe('');
    for (const d of result.repCap) expect(d.native).toMatch(/^E .*resulting string too large/);
    // the list is not vacuous: Lua's own argument errors are among the outcomes
    expect(reference.some((r) => r.includes('destination wrap around'))).toBe(true);
  };
  it.runIf(onLua54 && native)('lua54 = native Lua 5.4', () => {
    check(CHARGED_EDGES, runOnEngine(testEngine, CHARGED_EDGES), runNative(CHARGED_EDGES));
  });
  it.runIf(!onLua54)('fengari = fengari itself, unsandboxed', async () => {
    const exprs = CHARGED_EDGES.filter((e) => !HUGE_IN_FENGARI.includes(e));
    check(exprs, runOnEngine(testEngine, exprs), await runRawFengari(exprs));
  });
});
