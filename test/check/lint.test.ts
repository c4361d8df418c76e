import { describe, expect, it } from 'vitest';
import { lintLua, type LintSource } from '../../src/check/lint.ts';

const lint = (code: string, scope: LintSource['scope'] = 'Data', min = '0.8.15', extra?: Partial<LintSource>) =>
  lintLua({ file: 'x.lua', code, scope, ...extra }, { minAipackVersion: min });
const brief = (code: string, scope: LintSource['scope'] = 'Data', min = '0.8.15') =>
  lint(code, scope, min).map((f) => `${f.line}:${f.column} ${f.rule}`);

describe('lintLua: clean code', () => {
  it('accepts a correct stage script per stage', () => {
    const data = [
      'local rec = aip.file.load(input.path)',
      'local name = string.format("%s/%s", CTX.AGENT_NAME, rec.name)',
      'local t = { before_all = before_all, model = options.model }',
      'for i, v in ipairs({ 1, 2 }) do t[i] = v end',
      'if is_null(rec.content) then return aip.flow.skip("empty") end',
      'local ok, err = pcall(function() return utils.file.load("x") end)',
      'return aip.flow.data_response({ data = { name = name, ok = ok, err = tostring(err) } })',
    ].join('\n');
    expect(lint(data, 'Data')).toEqual([]);
    expect(lint('return { inputs = inputs, m = options.model }', 'BeforeAll')).toEqual([]);
    expect(lint('return ai_response and ai_response.content or data.x or input or before_all', 'Output')).toEqual([]);
    expect(lint('return #outputs + #inputs, before_all, options', 'AfterAll')).toEqual([]);
  });

  it('treats globals assigned in the chunk, function params, locals, self and labels as defined', () => {
    const code = [
      'function helper(a, ...) return a, ... end',
      'COUNT = 0',
      'local M = {}',
      'function M:inc() self.n = (self.n or 0) + 1; COUNT = COUNT + 1 end',
      'goto done',
      '::done::',
      'local t = { key = helper(1), [COUNT] = math.floor(2.5) }',
      'return M, t, utf8.char(65), os.time(), io.write, require, _ENV, _G',
    ].join('\n');
    expect(lint(code, 'module')).toEqual([]);
  });

  it('accepts floats, max int and extraGlobals', () => {
    expect(lint('return 1e15, 2147483647, 3000000000.0, 0x7FFFFFFF, 0x1p40, my_extra', 'module', '0.8.15', {})).toHaveLength(1);
    expect(
      lintLua({ file: 'x.lua', code: 'return 1e15, 2147483647, 3000000000.0, 0x7FFFFFFF, my_extra', scope: 'module' }, {
        minAipackVersion: '0.8.15',
        extraGlobals: ['my_extra'],
      }),
    ).toEqual([]);
  });
});

describe('lintLua: rules', () => {
  it('syntax: luaparse message at file:line:col, with lineOffset', () => {
    const f = lint('local a = 1\nlocal b = (2', 'Data', '0.8.15', { lineOffset: 10 });
    expect(f).toEqual([{ file: 'x.lua', line: 12, column: 13, rule: 'syntax', message: "')' expected near '<eof>'" }]);
  });

  it('lua54-syntax: reports <const>/<close> and keeps checking the rest', () => {
    const code = 'local x <const> = 5\nlocal a, b <close> = 1, nil\nlocal s = "local y <const> = 1" -- local z <const>\nreturn x + undefined_y';
    expect(lint(code)).toEqual([
      expect.objectContaining({ line: 1, column: 9, rule: 'lua54-syntax', message: expect.stringContaining('<const>') }),
      expect.objectContaining({ line: 2, column: 12, rule: 'lua54-syntax', message: expect.stringContaining('<close>') }),
      expect.objectContaining({ line: 4, column: 12, rule: 'undefined-global', message: "undefined global 'undefined_y'" }),
    ]);
  });

  it('targeting lua54 (check --engine lua54): no lua54-syntax or int-too-large, other rules still apply', () => {
    const code = 'local x <const> = 3000000000\nreturn x + undefined_y';
    expect(lintLua({ file: 'a.lua', code, scope: 'Data' }, { minAipackVersion: '0.8.15', engine: 'lua54' }).map((f) => f.rule)).toEqual(['undefined-global']);
    expect(lintLua({ file: 'a.lua', code, scope: 'Data' }, { minAipackVersion: '0.8.15', engine: 'fengari' }).map((f) => f.rule)).toEqual([
      'lua54-syntax',
      'int-too-large',
      'undefined-global',
    ]);
  });

  it('int-too-large: integer literals beyond 32 bits, not floats', () => {
    const f = lint('local a = 0xFFFFFFFF\nlocal b = 3000000000\nlocal c = 1e15 + 2147483648.0\nlocal d = -2147483648');
    expect(f.map((x) => `${x.line}:${x.column} ${x.rule}`)).toEqual(['1:11 int-too-large', '2:11 int-too-large', '4:12 int-too-large']);
    expect(f[0].message).toBe(
      "integer literal 0xFFFFFFFF is beyond 2147483647: fengari integers are 32-bit (AIPack's Lua 5.4: 64-bit), so it wraps around there; use a float literal (e.g. 4294967295.0) if that is meant",
    );
    expect(f[1].message).toContain('turns into a float');
  });

  it('undefined-global: stage variables are per stage, modules see none', () => {
    expect(lint('return input', 'module')).toEqual([
      {
        file: 'x.lua',
        line: 1,
        column: 8,
        rule: 'undefined-global',
        message: "undefined global 'input' (stage variable of Data, Output; required modules do not see stage variables)",
      },
    ]);
    expect(lint('return ai_response', 'Data')[0].message).toBe(
      "undefined global 'ai_response' (stage variable of Output, not of Data)",
    );
    expect(brief('return outputs', 'AfterAll')).toEqual([]);
    expect(brief('return outputs', 'BeforeAll')).toEqual(['1:8 undefined-global']);
    expect(brief('local x = unpack({1})\nreturn debug.traceback()', 'module')).toEqual([
      '1:11 undefined-global',
      '2:8 undefined-global',
    ]);
  });

  it('undefined-global: writes are not reads; a member write reads its base', () => {
    expect(brief('foo.bar = 1', 'module')).toEqual(['1:1 undefined-global']);
    expect(brief('function foo.bar() end', 'module')).toEqual(['1:10 undefined-global']);
    expect(brief('local x = y\ny = 2', 'module')).toEqual([]);
  });

  it('AIPack globals follow the minimum version', () => {
    expect(brief('return NULL, is_null(1), null', 'Data', '0.8.15')).toEqual([]);
    const f = lint('return NULL', 'Data', '0.8.14');
    expect(f).toEqual([
      expect.objectContaining({
        line: 1,
        column: 8,
        rule: 'aip-too-new',
        message: 'global NULL needs AIPack >= 0.8.15; minimum AIPack version checked: 0.8.14',
      }),
    ]);
    expect(brief('return is_table({})', 'Data', '0.8.26')).toEqual(['1:8 aip-too-new']);
    expect(brief('return is_table({})', 'Data', '0.8.27')).toEqual([]);
    expect(lint('return aipack.skip()', 'Data', '0.8.15')[0].message).toMatch(/^global aipack was removed in AIPack 0\.8\.1 /);
  });

  it('aip-too-new: aip.file.copy at 0.8.14 but not at 0.8.15', () => {
    const code = 'local a = 1\n  aip.file.copy("a", "b")';
    expect(lint(code, 'Data', '0.8.14')).toEqual([
      {
        file: 'x.lua',
        line: 2,
        column: 3,
        rule: 'aip-too-new',
        message: 'aip.file.copy needs AIPack >= 0.8.15; minimum AIPack version checked: 0.8.14',
      },
    ]);
    expect(lint(code, 'Data', '0.8.15')).toEqual([]);
  });

  it('aip-too-new: removed functions, namespaces, constants, method calls, reads as values', () => {
    expect(lint('return aip.flow.redo()', 'AfterAll', '0.8.22')[0]).toMatchObject({
      rule: 'aip-too-new',
      message:
        'aip.flow.redo was removed in AIPack 0.8.22 (exists only from AIPack 0.8.17 until before 0.8.22); minimum AIPack version checked: 0.8.22',
    });
    expect(brief('return aip.flow.redo()', 'AfterAll', '0.8.17')).toEqual([]);
    expect(brief('return aip.flow.redo_run()', 'AfterAll', '0.8.17')).toEqual(['1:8 aip-too-new']);
    expect(brief('local z = aip.zip', 'Data', '0.8.15')).toEqual(['1:11 aip-too-new']);
    expect(brief('local ua = aip.web.UA_AIPACK', 'Data', '0.8.5')).toEqual(['1:12 aip-too-new']);
    expect(brief('local f = aip.md.extract_refs', 'Data', '0.8.9')).toEqual(['1:11 aip-too-new']);
    expect(brief('return aip["file"]:copy("a", "b")', 'Data', '0.8.14')).toEqual(['1:8 aip-too-new']);
  });

  it('aip-too-new: a guarded read is still reported, but can be silenced on its line', () => {
    expect(brief('if aip.md.extract_refs then return 1 end', 'Data', '0.8.9')).toEqual(['1:4 aip-too-new']);
    const silenced = 'if aip.md.extract_refs then -- check:allow aip-too-new\n  return aip.md.extract_refs("x") -- check:allow aip-too-new\nend';
    expect(lint(silenced, 'Data', '0.8.9')).toEqual([]);
    // only the named rule, only on that line
    expect(brief('local x = aip.md.extract_refs, nope -- check:allow aip-too-new', 'Data', '0.8.9')).toEqual([
      '1:32 undefined-global',
    ]);
    expect(brief('local x = nope -- check:allow undefined-global, int-too-large', 'Data')).toEqual([]);
  });

  it('unknown-aip: unknown functions and namespaces, also via utils', () => {
    expect(lint('utils.file.nope()')).toEqual([
      expect.objectContaining({
        line: 1,
        column: 1,
        rule: 'unknown-aip',
        message: 'utils.file.nope is not an AIPack function or constant',
      }),
    ]);
    expect(lint('return aip.foo.bar()')[0]).toMatchObject({ rule: 'unknown-aip', message: 'aip.foo is not an AIPack namespace' });
    expect(brief('return utils.file.load("x"), utils.file.copy')).toEqual([]);
    expect(brief('return utils.file.copy', 'Data', '0.8.14')).toEqual(['1:8 aip-too-new']);
  });

  it('does not flag assignments into aip, nor locals named aip', () => {
    expect(brief('aip.custom.fn = function() end\naip.extra = {}\nfunction aip.file.mine() end')).toEqual([]);
    // a longer target reads its prefix
    expect(brief('aip.file.nope.x = 1')).toEqual(['1:1 unknown-aip']);
    expect(brief('local aip = { foo = { bar = 1 } }\nreturn aip.foo.bar')).toEqual([]);
  });
});
