/**
 * Runs Lua 5.4's official test suite (lua/lua `testes/`, tag v5.4.4) on the lua54 engine through the simulator's
 * sandbox, one file per state, and prints a table: file, pass/fail, time, the first line of the error.
 *
 *   git -C <lua/lua bare repo> archive v5.4.4 testes | tar -x -C /tmp/lua-5.4.4
 *   npx tsx bench/lua-testes.ts /tmp/lua-5.4.4/testes [file.lua ...]
 *
 * The suite is another project's code: it is read from the directory given, never copied into this repository.
 * Each file runs as `lua -e"_port=true; _soft=true" file.lua` would (`_port` skips tests of the host system,
 * `_soft` the heavy ones), with the files' folder as the load root (`dofile`, `require`). No test is edited: what
 * the sandbox removes by design fails its file, and that is the expected outcome of exactly two files:
 *   - db.lua: the `debug` library is not opened;
 *   - gc.lua: `setmetatable` refuses metatables with `__gc` (finalizers run beyond the instruction budget).
 * Any other failure is an engine or sandbox bug (or an edit the sandbox would require, to be listed here).
 */
import { readdirSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { loadEngine } from '../src/engine/index.ts';

const EXPECTED_TO_FAIL: Record<string, string> = {
  'db.lua': 'no debug library in the sandbox',
  'gc.lua': '__gc metamethods are refused by the sandbox',
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
  const verdict = error === '' ? (expected ? 'PASS (unexpected)' : 'pass') : expected ? 'fail (expected)' : 'FAIL';
  rows.push({ file, verdict, ms: Date.now() - t0, error: error || (expected ?? '') });
  console.error(`${file}: ${verdict}`);
}
const width = Math.max(...rows.map((r) => r.file.length));
console.log(`${'file'.padEnd(width)}  verdict            ms  error`);
for (const r of rows) console.log(`${r.file.padEnd(width)}  ${r.verdict.padEnd(17)} ${String(r.ms).padStart(6)}  ${r.error.slice(0, 110)}`);
const unexpected = rows.filter((r) => r.verdict === 'FAIL' || r.verdict.startsWith('PASS'));
console.log(`\n${rows.length} files: ${rows.filter((r) => r.verdict === 'pass').length} pass, ${rows.filter((r) => r.verdict === 'fail (expected)').length} fail as expected, ${unexpected.length} unexpected`);
process.exitCode = unexpected.length > 0 ? 1 : 0;
