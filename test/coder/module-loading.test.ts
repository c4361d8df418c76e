// The pack's modules load what serves only some prompts where it is used: every stage (in AIPack too) loads its
// modules anew, so a module required at the top of another is paid for by every stage that loads that one.
import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { testEngine } from '../helpers/engine.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';

const LUA_DIR = nodePath.join(REPO_PACK.dir, 'lua');

function packState() {
  return testEngine.createState({
    budget: 2_000_000_000,
    budgetMessage: 'budget exceeded',
    moduleDirs: [LUA_DIR],
    readFile: (abs) => (abs.startsWith(LUA_DIR + '/') && fs.existsSync(abs) ? fs.readFileSync(abs, 'utf8') : undefined),
    loadRoots: [],
    baseDir: '/',
    print: () => {},
    displayPath: (abs) => abs,
  });
}

/** `body`'s result, then the names among `modules` that are in package.loaded after it */
function run(body: string, modules: string[]): unknown {
  const state = packState();
  try {
    return state.runChunk(`
      local result = (function() ${body} end)()
      local loaded = {}
      for _, name in ipairs({ ${modules.map((m) => `"${m}"`).join(', ')} }) do
        if package.loaded[name] ~= nil then loaded[#loaded + 1] = name end
      end
      return { result = result, loaded = loaded }
    `, '/test.lua', 1, {}, 'aip');
  } finally {
    state.close();
  }
}

describe('pack modules loaded only where used', () => {
  it('utils_params checks auto_fix with auto_fix.lua only when the prompt gives one', () => {
    expect(run('return require("utils_params").settings({}) ~= nil', ['auto_fix'])).toEqual({ result: true, loaded: [] });
    expect(run('local s, err = require("utils_params").settings({ auto_fix = 3 }) return err', ['auto_fix'])).toEqual({
      result: expect.stringContaining('auto_fix'),
      loaded: ['auto_fix'],
    });
  });

  it('requiring utils_before_all, utils_files and recorder loads neither auto_context, code_map nor record_json', () => {
    const late = ['auto_context', 'code_map', 'record_json'];
    expect(run('require("utils_before_all") require("utils_files") require("recorder") return true', late)).toEqual({ result: true, loaded: [] });
  });
});
