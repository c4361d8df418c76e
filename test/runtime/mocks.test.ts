import { describe, expect, it } from 'vitest';
import { MockError, parseMocks, parseMocksToml } from '../../src/runtime/mocks.ts';
import { runLua } from '../helpers/lua.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { REPO_ROOT } from '../../src/runtime/packs.ts';

describe('mocks (user stubs of aip.*)', () => {
  it('replace a function by a fixed value or by a Lua body, and constants by their value', () => {
    const mocks = parseMocks(
      {
        'aip.file.hash_blake3': 'fixed-hash',
        'aip.pdf.page_count': { lua: 'local path = ... return #path' },
        'aip.web.UA_AIPACK': 'stub-ua',
      },
      'test',
    );
    const { value } = runLua('return { h = aip.file.hash_blake3("x"), n = aip.pdf.page_count("abcd"), ua = aip.web.UA_AIPACK }', { mocks });
    expect(value).toEqual({ h: 'fixed-hash', n: 4, ua: 'stub-ua' });
  });

  it('refuse unknown names, and names the simulated version does not have', () => {
    expect(() => parseMocks({ 'aip.file.nope': 1 }, 'm.toml')).toThrow(MockError);
    expect(() => parseMocks({ 'aip.file.nope': 1 }, 'm.toml')).toThrow(/m.toml: unknown function 'aip.file.nope'/);
    expect(() => parseMocksToml('[mocks]\n"aip.flow.redo_run" = 1\n', 'm.toml')).not.toThrow();
    expect(() => runLua('return 1', { mocks: parseMocks({ 'aip.flow.redo_run': 1 }, 'm'), aipackVersion: '0.8.15' })).toThrow(/AIPack 0.8.15 has no such function \(it exists from 0.8.22\)/);
  });

  it('a contract case can script commands and stub functions', () => {
    const r = runStage({
      agent: 'fixtures/sub-agents/npm-test-gate.aip',
      baseDir: REPO_ROOT,
      stage: 'post',
      responses: [{ task_num: 1, content: 'Done.' }],
      commands: [{ match: '^npm test$', stdout: 'Tests  1 failed | 1 passed (2)\n', exit: 1 }],
    });
    expect(r.ok).toBe(false);
    expect(r.error).toContain('npm test failed: 1 failed, 1 passed');
    expect(() => runStage({ agent: 'fixtures/sub-agents/npm-test-gate.aip', baseDir: REPO_ROOT, stage: 'post', mocks: { 'aip.nope.x': 1 } })).toThrow(/unknown function 'aip.nope.x'/);
  });
});

describe('--aipack-base (SimulatorOptions.aipackBase)', () => {
  it('gives CTX.BASE_AIPACK_DIR, ~/.aipack-base paths and the packs under it', () => {
    const base = '/virtual/base-test/.aipack-base';
    const files = {
      [`${base}/pack/installed/acme/tools/main.aip`]: '# After All\n\n```lua\nreturn "installed tool"\n```\n',
      [`${base}/notes.txt`]: 'base note',
    };
    const { value } = runLua(
      'return { dir = CTX.BASE_AIPACK_DIR, note = aip.file.load("~/.aipack-base/notes.txt").content, tool = aip.agent.run("acme@tools").after_all }',
      { files, aipackBase: base },
    );
    expect(value).toEqual({ dir: base, note: 'base note', tool: 'installed tool' });
  });
});
