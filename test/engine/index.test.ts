/** Loading an engine (index.ts); choosing one by name is names.test.ts. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getEngine, loadEngine } from '../../src/engine/index.ts';
import { TSX } from '../helpers/cli.ts';

const url = (rel: string) => pathToFileURL(fileURLToPath(new URL(rel, import.meta.url))).href;

/** Runs `code` (an ES module) in a new Node process; its last line of output, parsed. */
function probe(code: string): unknown {
  const r = spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', code], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout.trim().split('\n').at(-1) as string);
}

// fengari's own modules in Node's CommonJS cache: fengari-vm.ts requires them there
const FENGARI_LOADED = `Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/fengari/'))`;

describe('engine loading', () => {
  it('loads each engine once, and names an unknown one', async () => {
    const a = await loadEngine('lua54');
    expect(await loadEngine('lua54')).toBe(a);
    expect(getEngine('lua54')).toBe(a);
    const f = await loadEngine('fengari');
    expect(getEngine('fengari')).toBe(f);
    expect([f.luaVersion, a.luaVersion]).toEqual(['Lua 5.3', 'Lua 5.4']);
    await expect(loadEngine('nope' as never)).rejects.toThrow("unknown Lua engine 'nope': expected fengari or lua54");
    expect(() => getEngine('nope' as never)).toThrow("unknown Lua engine 'nope'");
  });

  it('loads an engine only when it is asked for: a worker running lua54 runs without fengari, which getEngine then asks to load', () => {
    // the workers' jobs modules (test cases, run-agent): their whole module graph, as a worker loads it
    const out = probe(`
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(url('../../src/harness/worker-jobs.ts'))});
      await import(${JSON.stringify(url('../../src/cli/simulate-job.ts'))});
      const { getEngine, loadEngine } = await import(${JSON.stringify(url('../../src/engine/index.ts'))});
      const before = ${FENGARI_LOADED};
      await loadEngine('lua54');
      let error = '';
      try { getEngine('fengari'); } catch (err) { error = err.message; }
      const afterLua54 = ${FENGARI_LOADED};
      await loadEngine('fengari');
      console.log(JSON.stringify({ before, afterLua54, error, fengari: getEngine('fengari').luaVersion, loaded: ${FENGARI_LOADED} }));
    `);
    expect(out).toEqual({
      before: false,
      afterLua54: false,
      error: "the fengari engine is not loaded: call `await loadEngine('fengari')` before creating a Simulator with it",
      fengari: 'Lua 5.3',
      loaded: true,
    });
  });

  it("the package's entry has fengari ready: a Simulator on the default engine needs no await", () => {
    const out = probe(`
      const lib = await import(${JSON.stringify(url('../../src/index.ts'))});
      console.log(JSON.stringify({ version: lib.getEngine('fengari').luaVersion }));
    `);
    expect(out).toEqual({ version: 'Lua 5.3' });
  });
});
