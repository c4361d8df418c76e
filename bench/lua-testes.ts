/**
 * Runs Lua 5.4's official test suite (lua/lua `testes/`, tag v5.4.4) on the lua54 engine through the simulator's
 * sandbox, one file per state, and prints a table: file, pass/fail, time, our edits (count and kinds), the first
 * line of the error.
 *
 *   git -C <lua/lua bare repo> archive v5.4.4 testes | tar -x -C /tmp/lua-5.4.4
 *   npx tsx bench/lua-testes.ts /tmp/lua-5.4.4/testes [file.lua ...]
 *
 * The suite is another project's code: it is read from the directory given, never copied into this repository.
 * Each file runs as `lua -e"_port=true; _soft=true" file.lua` would (`_port` skips tests of the host system,
 * `_soft` the heavy ones): through `dofile`, which reads the file's bytes and runs it in the global environment,
 * with the files' folder as the load root (`dofile`, `require`). The bytes a test file is read with have our edits
 * applied (bench/lua-testes-edits.ts): the blocks that use what the sandbox removes are dropped, each edit checked
 * against the v5.4.4 text first. A file expected to fail (EXPECTED_TO_FAIL) must fail with the error its reason
 * names; any other failure is an engine or sandbox bug.
 */
import { readdirSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { loadEngine } from '../src/engine/index.ts';
import { applyEdits, EDITS } from './lua-testes-edits.ts';

/**
 * Files that fail by design, each with the error it must fail with and why: they test what AIPack's Lua (mlua's
 * `Lua::new`, which AIPack calls in `src/script/lua_engine.rs`: no `debug`) and the sandbox (docs/sandbox.md:
 * `__gc` metamethods are refused) do not have, throughout.
 */
const EXPECTED_TO_FAIL: Record<string, { error: RegExp; reason: string }> = {
  'db.lua': { error: /module 'debug' not found/, reason: "tests the debug library, which AIPack's Lua does not have (mlua's safe subset)" },
  'gc.lua': { error: /module 'debug' not found/, reason: "tests the collector through finalizers (refused by the sandbox) and the debug library" },
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

// every edit is checked before any file runs: a suite that is not v5.4.4's stops here
const edited = new Map<string, Buffer>();
for (const file of Object.keys(EDITS)) {
  try {
    edited.set(nodePath.join(root, file), applyEdits(file, readFileSync(nodePath.join(root, file)), EDITS[file]!));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}
const editsOf = (file: string) => {
  const edits = EDITS[file] ?? [];
  const kinds = [...new Set(edits.map((e) => e.kind))].join(', ');
  return edits.length === 0 ? '-' : `${edits.length} (${kinds})`;
};

const engine = await loadEngine('lua54');
const rows: { file: string; verdict: string; ms: number; edits: string; error: string }[] = [];
for (const file of files) {
  const abs = nodePath.join(root, file);
  const state = engine.createState({
    budget: 5e11,
    budgetMessage: 'instruction budget exceeded',
    moduleDirs: [root],
    readFile: (p) => {
      try {
        return edited.get(p) ?? readFileSync(p);
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
  rows.push({ file, verdict, ms: Date.now() - t0, edits: editsOf(file), error: verdict === 'fail (expected)' ? expected!.reason : error || (expected?.reason ?? '') });
  console.error(`${file}: ${verdict}`);
}
const width = Math.max(...rows.map((r) => r.file.length));
const editWidth = Math.max(5, ...rows.map((r) => r.edits.length));
console.log(`${'file'.padEnd(width)}  verdict            ms  ${'edits'.padEnd(editWidth)}  error`);
for (const r of rows) console.log(`${r.file.padEnd(width)}  ${r.verdict.padEnd(17)} ${String(r.ms).padStart(6)}  ${r.edits.padEnd(editWidth)}  ${r.error.slice(0, 110)}`);
const unexpected = rows.filter((r) => r.verdict.startsWith('FAIL') || r.verdict.startsWith('PASS'));
console.log(`\n${rows.length} files: ${rows.filter((r) => r.verdict === 'pass').length} pass, ${rows.filter((r) => r.verdict === 'fail (expected)').length} fail as expected, ${unexpected.length} unexpected`);
process.exitCode = unexpected.length > 0 ? 1 : 0;
