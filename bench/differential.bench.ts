/**
 * The differential figures: N seeded random expressions (default 10,000; DIFF_N, DIFF_SEED) evaluated on lua54 (its
 * own pattern matcher, and every pattern call routed to the step-counting one) and on native lua5.4; prints the
 * value and wording differences, and DIFF_SHOW=k of each kind.
 */
import { loadEngine } from '../src/engine/index.ts';
import { compare, expressionGenerator, nativeLuaAvailable, runNative, runOnEngine, type Comparison } from '../test/helpers/lua-differential.ts';

const N = Number(process.env.DIFF_N ?? 10_000);
const SEED = Number(process.env.DIFF_SEED ?? 20_261_125);
const SHOW = Number(process.env.DIFF_SHOW ?? 5);

if (!nativeLuaAvailable()) {
  console.log('native lua5.4 not installed (/usr/bin/lua5.4): nothing to compare against');
  process.exit(0);
}
const next = expressionGenerator(SEED);
const exprs = Array.from({ length: N }, next);
const lua54 = await loadEngine('lua54');
const t0 = performance.now();
const native = runNative(exprs);
const t1 = performance.now();
const report = (label: string, c: Comparison, ms: number) => {
  const pct = (n: number) => ((100 * n) / c.total).toFixed(2) + '%';
  console.log(`${label}: ${c.total} expressions, ${c.values.length} value differences (${pct(c.values.length)}), ${c.wording.length} wording differences (${pct(c.wording.length)}), ${c.repCap.length} at the string.rep cap, ${c.limits.length} stopped by a sandbox limit; ${ms.toFixed(0)} ms`);
  for (const d of [...c.values.slice(0, SHOW), ...c.wording.slice(0, SHOW), ...c.limits.slice(0, SHOW)]) console.log(`  ${d.expr}\n    ours:   ${d.ours}\n    native: ${d.native}`);
};
console.log(`seed ${SEED}; native lua5.4: ${(t1 - t0).toFixed(0)} ms`);
for (const [label, steps] of [['lua54', undefined], ['lua54, every pattern call routed', 0]] as const) {
  const t = performance.now();
  const ours = runOnEngine(lua54, exprs, steps);
  report(label, compare(exprs, ours, native), performance.now() - t);
}
