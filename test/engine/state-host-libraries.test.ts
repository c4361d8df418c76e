/**
 * The library functions the engine core installs over the simulation (state-host-libraries.ts), on the engine of
 * this vitest project: print and io.write, package.searchpath, require/dofile/loadfile, and host errors as Lua errors.
 */
import { describe, expect, it } from 'vitest';
import { ENGINE_NAME, onLua54, runBare, testEngine } from '../helpers/engine.ts';

const run = runBare;

describe(`libraries and loaders the core installs (${ENGINE_NAME})`, () => {
  function withFiles(files: Record<string, string>) {
    const printed: string[] = [];
    const s = testEngine.createState({
      budget: 1e7,
      budgetMessage: 'budget',
      moduleDirs: ['/w/lib'],
      readFile: (abs) => files[abs],
      loadRoots: ['/w'],
      baseDir: '/w',
      print: (t) => printed.push(t),
      displayPath: (p) => p.replace('/w/', ''),
    });
    return { printed, run: (code: string) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde'), state: s };
  }

  it('print joins its arguments with newlines through tostring; io.write concatenates strings and numbers only', () => {
    const { printed, run: go } = withFiles({});
    go('print("a", nil, 1, true) io.write("x", 2, "y")');
    expect(printed).toEqual(['a\nnil\n1\ntrue', 'x2y']);
    // as Lua's io.write: anything else is an argument error (fengari's stand-in once printed it)
    expect(go('local ok, e = pcall(io.write, "a", true) return e')).toMatch(/bad argument #2 to '(io\.)?write' \(string expected, got boolean\)/);
    expect(go('return package.loaded.io == io')).toBe(true);
  });

  it('require finds modules on package.path, loads them once, and reports compile errors with the file', () => {
    const { run: go } = withFiles({ '/w/lib/m.lua': 'count = (count or 0) + 1 return { n = count }', '/w/lib/bad.lua': 'return {' });
    expect(go('local a = require("m") local b = require("m") return { a.n, a == b }')).toEqual([1, true]);
    expect(go('local ok, e = pcall(require, "bad") return e')).toMatch(/^error loading module 'bad' from file '\/w\/lib\/bad\.lua':\n\tlib\/bad\.lua:1: /);
    expect(go('local ok, e = pcall(require, "none") return e')).toMatch(/module 'none' not found:[\s\S]*no file '\/w\/lib\/none\.lua'/);
    // as in AIPack's Lua (mlua's safe mode): the C searchers are replaced by one that says so (its message starts
    // with a line break, which Lua 5.4's require adds too), loadlib refuses
    const cLine = onLua54 ? "\n\t\n\tcan't load C modules in safe mode" : "\n\tcan't load C modules in safe mode";
    expect(go('local ok, e = pcall(require, "none") return e')).toBe(
      `module 'none' not found:\n\tno field package.preload['none']\n\tno file '/w/lib/none.lua'\n\tno file '/w/lib/none/init.lua'\n\tno file './none.lua'\n\tno file './none/init.lua'${cLine}`,
    );
    expect(go('return { package.searchpath("none", "/w/?.lua;;/w/?/x.lua") }')).toEqual([
      null,
      // Lua 5.4 lists the empty template as the file ''; 5.3 skips it (native lua5.4 and fengari)
      onLua54 ? "no file '/w/none.lua'\n\tno file ''\n\tno file '/w/none/x.lua'" : "\n\tno file '/w/none.lua'\n\tno file '/w/none/x.lua'",
    ]);
    expect(go('return { #package.searchers, pcall(package.loadlib, "/lib/libc.so.6", "open") }')).toEqual([3, false, 'package.loadlib is disabled in safe mode']);
  });

  it('loadfile gives nil and a message for a missing or broken file; dofile raises them and returns all results', () => {
    const { run: go } = withFiles({ '/w/two.lua': 'return 1, 2', '/w/bad.lua': 'x =' });
    expect(go('return { dofile("two.lua") }')).toEqual([1, 2]);
    expect(go('local f, e = loadfile("none.lua") return { f == nil, e }')).toEqual([true, 'cannot open none.lua']);
    expect(go('local f, e = loadfile("bad.lua") return { f == nil, (e:gsub(":.*", "")) }')).toEqual([true, 'bad.lua']);
    expect(go('local ok, e = pcall(dofile, "bad.lua") return { ok, (e:gsub(":.*", "")) }')).toEqual([false, 'bad.lua']);
  });

  it('a host error while require, dofile or loadfile reads a file is a Lua error that pcall catches', () => {
    const s = testEngine.createState({
      budget: 1e7,
      budgetMessage: 'budget',
      moduleDirs: ['/w/lib'],
      readFile: (abs) => {
        if (abs.includes('refused')) throw new Error(`cannot read ${abs}: refused by the host`);
        return undefined;
      },
      loadRoots: ['/w'],
      baseDir: '/w',
      print: () => {},
      displayPath: (p) => p,
    });
    const go = (code: string) => s.runChunk(code, '/w/t.lua', 1, {}, 'serde');
    expect(go('return { pcall(require, "refused") }')).toEqual([false, 'cannot read /w/lib/refused.lua: refused by the host']);
    expect(go('return { pcall(dofile, "refused.lua") }')).toEqual([false, 'cannot read /w/refused.lua: refused by the host']);
    expect(go('return { pcall(loadfile, "refused.lua") }')).toEqual([false, 'cannot read /w/refused.lua: refused by the host']);
    expect(go('return { pcall(package.searchpath, "refused", package.path) }')).toEqual([false, 'cannot read /w/lib/refused.lua: refused by the host']);
    // the state goes on
    expect(go('return 1 + 1')).toBe(2);
  });

  it("does not read a '%' in a host error message as a format", () => {
    expect(run('local ok, e = pcall(dofile, "/x/%d%s") return e')).toBe('cannot open /x/%d%s: outside the workspace');
  });

  it('package.searchpath never probes the host, and the searcher rejects non-string names cleanly', () => {
    expect(run('return { package.searchpath("hostname", "/etc/?") }')).toEqual([null, `${onLua54 ? '' : '\n\t'}no file '/etc/hostname' (outside the workspace: not read)`]);
    expect(run('local ok, e = pcall(package.searchers[2], {}) return e')).toMatch(/bad argument #1 .*string expected, got table/);
  });
});
