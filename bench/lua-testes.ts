/**
 * Runs Lua 5.4's official test suite (lua/lua `testes/`, tag v5.4.4) on the lua54 engine through the simulator's
 * sandbox, one file per state, and prints a table: file, pass/fail, time, the first line of the error.
 *
 *   git -C <lua/lua bare repo> archive v5.4.4 testes | tar -x -C /tmp/lua-5.4.4
 *   npx tsx bench/lua-testes.ts /tmp/lua-5.4.4/testes [file.lua ...]
 *
 * The suite is another project's code: it is read from the directory given, never copied into this repository.
 * Each file runs as `lua -e"_port=true; _soft=true" file.lua` would (`_port` skips tests of the host system,
 * `_soft` the heavy ones): through `dofile`, which reads the file's own bytes and runs it in the global
 * environment, with the files' folder as the load root (`dofile`, `require`). No test is edited. A file expected to
 * fail (EXPECTED_TO_FAIL) must fail with the error its reason names; any other failure is an engine or sandbox bug.
 */
import { readdirSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { loadEngine } from '../src/engine/index.ts';

/**
 * Files that fail by design, each with the error it must fail with and why. Two kinds: AIPack's own Lua fails them
 * the same way (mlua's `Lua::new`, which AIPack calls in `src/script/lua_engine.rs`, opens the safe subset of the
 * standard libraries: no `debug`, and the C searchers replaced by one that refuses), or the sandbox removed what
 * they use (docs/sandbox.md: `__gc` metamethods are refused; `io` holds only `write`).
 */
const NO_DEBUG = { error: /module 'debug' not found/, reason: "AIPack's Lua has no debug library (mlua's safe subset)" };
const EXPECTED_TO_FAIL: Record<string, { error: RegExp; reason: string }> = {
  'db.lua': NO_DEBUG,
  'calls.lua': NO_DEBUG,
  'closure.lua': NO_DEBUG,
  'constructs.lua': NO_DEBUG,
  'coroutine.lua': NO_DEBUG,
  'errors.lua': NO_DEBUG,
  'events.lua': NO_DEBUG,
  'files.lua': NO_DEBUG,
  'gc.lua': { error: /module 'debug' not found/, reason: "no debug library (as AIPack); its finalizers would be refused by the sandbox too" },
  'gengc.lua': NO_DEBUG,
  'goto.lua': NO_DEBUG,
  'literals.lua': NO_DEBUG,
  'locals.lua': NO_DEBUG,
  'attrib.lua': { error: /^attrib\.lua:67: assertion failed!$/, reason: "require's message ends with mlua's \"can't load C modules in safe mode\" (as AIPack's), not the C files stock Lua tried" },
  'cstack.lua': { error: /__gc metamethods are not supported in the simulator's sandbox/, reason: 'its tracegc helper sets a __gc metamethod: refused by the sandbox' },
  'nextvar.lua': { error: /^nextvar\.lua:344: table index is nil$/, reason: 'uses io.stdin: the sandbox keeps only io.write' },
  'strings.lua': { error: /^strings\.lua:168: assertion failed!$/, reason: 'formats io.stdin with %p: the sandbox keeps only io.write' },
};
/** files that are drivers or need a host program, not tests of their own */
const NOT_TESTS = new Set(['all.lua', 'main.lua', 'heavy.lua', 'tracegc.lua']);

const dir = process.argv[2];
if (!dir) {
  console.error('usage: npx tsx bench/lua-testes.ts <testes dir> [file.lua ...]');
  process.exit(2);
}
const root = nodePath.resolve(dir);
const only = process.argv.slice(3);
const files = (only.length > 0 ? only : readdirSync(root).filter((f) => f.endsWith('.lua') && !NOT_TESTS.has(f))).sort();

const engine = await loadEngine('lua54');
const rows: { file: string; verdict: string; ms: number; error: string }[] = [];
for (const file of files) {
  const abs = nodePath.join(root, file);
  const state = engine.createState({
    budget: 5e11,
    budgetMessage: 'instruction budget exceeded',
    moduleDirs: [root],
    readFile: (p) => {
      try {
        return readFileSync(p);
      } catch {
        return undefined;
      }
    },
    loadRoots: [root],
    baseDir: root,
    print: () => {},
    displayPath: (p) => nodePath.relative(root, p),
  });
  const t0 = Date.now();
  let error = '';
  try {
    // as `lua file.lua` runs it: the file's own bytes (dofile reads them as they are; some files hold Latin-1
    // bytes in their patterns and strings), its chunk in the global environment
    state.setGlobal('_port', true);
    state.setGlobal('_soft', true);
    state.runChunk(`dofile(${JSON.stringify(abs)})`, nodePath.join(root, '(driver)'), 1, {}, 'serde');
  } catch (err) {
    error = (err as Error).message.split('\n')[0] ?? '';
  } finally {
    state.close();
  }
  const expected = EXPECTED_TO_FAIL[file];
  const verdict = error === '' ? (expected ? 'PASS (unexpected)' : 'pass') : !expected ? 'FAIL' : expected.error.test(error) ? 'fail (expected)' : 'FAIL (other error)';
  rows.push({ file, verdict, ms: Date.now() - t0, error: verdict === 'fail (expected)' ? expected!.reason : error || (expected?.reason ?? '') });
  console.error(`${file}: ${verdict}`);
}
const width = Math.max(...rows.map((r) => r.file.length));
console.log(`${'file'.padEnd(width)}  verdict            ms  error`);
for (const r of rows) console.log(`${r.file.padEnd(width)}  ${r.verdict.padEnd(17)} ${String(r.ms).padStart(6)}  ${r.error.slice(0, 110)}`);
const unexpected = rows.filter((r) => r.verdict.startsWith('FAIL') || r.verdict.startsWith('PASS'));
console.log(`\n${rows.length} files: ${rows.filter((r) => r.verdict === 'pass').length} pass, ${rows.filter((r) => r.verdict === 'fail (expected)').length} fail as expected, ${unexpected.length} unexpected`);
process.exitCode = unexpected.length > 0 ? 1 : 0;
