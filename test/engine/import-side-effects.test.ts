/**
 * Importing the library leaves the caller's process as it was: no V8 flag turned on (expose-gc: a fresh context
 * would get a `gc` global), no global `gc`, `WebAssembly.instantiate` and `Function.prototype.apply` the very same
 * functions, even after the lua54 engine is loaded. Not even for a moment: with those made read-only first, any
 * replacement would throw, and the engine still loads and runs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TSX } from '../helpers/cli.ts';

const ENTRY = pathToFileURL(fileURLToPath(new URL('../../src/index.ts', import.meta.url))).href;

const PROBE = `
import vm from 'node:vm';
const instantiate = WebAssembly.instantiate, apply = Function.prototype.apply;
const readOnly = (obj, key) => Object.defineProperty(obj, key, { writable: false, configurable: false });
readOnly(WebAssembly, 'instantiate');
readOnly(Function.prototype, 'apply');
readOnly(globalThis, 'WebAssembly');
const lib = await import(${JSON.stringify(ENTRY)});
// watched while the engine loads too: a replacement held across an await would be seen by other code meanwhile
let replaced = false, loading = true;
const watch = () => { if (WebAssembly.instantiate !== instantiate) replaced = true; if (loading) setImmediate(watch); };
watch();
const engine = await lib.loadEngine('lua54');
loading = false;
const state = engine.createState({ budget: 1e6, budgetMessage: 'budget', moduleDirs: [], readFile: () => undefined, loadRoots: [], baseDir: '/', print: () => {}, displayPath: (p) => p });
const ran = state.runChunk('return 6 * 7', '/probe.lua', 1, {}, 'serde');
state.close();
const freshContextGc = () => vm.runInNewContext('typeof gc');
console.log(JSON.stringify({
  gc: typeof globalThis.gc,
  flag: freshContextGc(),
  instantiate: WebAssembly.instantiate === instantiate && !replaced,
  apply: Function.prototype.apply === apply,
  ran,
}));
`;

describe('importing the library', () => {
  it('changes no V8 flag and no global, lua54 loaded included', () => {
    const r = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', PROBE], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1) as string)).toEqual({ gc: 'undefined', flag: 'undefined', instantiate: true, apply: true, ran: 42 });
  });
});
