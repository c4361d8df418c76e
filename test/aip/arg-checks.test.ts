import { describe, expect, it } from 'vitest';
import { optStr, pathArg, reqInt, reqStr, withArgChecks } from '../../src/aip/arg-checks.ts';
import { HOST_OPTIONS, hostFn, LuaError, type HostFunction } from '../../src/engine/values.ts';

type Fn = (...args: unknown[]) => unknown;
const echo: Fn = (...args) => args;

/** One function of a namespace behind its entry's checks. */
const checked = (ns: string, name: string, f: Fn = (...args) => args): Fn => withArgChecks(ns, { [name]: f })[name] as Fn;

describe('withArgChecks: derived from the declared parameter types', () => {
  it('string|nil: nil passes, anything else (null included) is refused in the expected wording', () => {
    const trim = checked('text', 'trim');
    expect(trim(undefined)).toEqual([undefined]);
    expect(trim('a')).toEqual(['a']);
    expect(() => trim(12)).toThrow(new LuaError("aip.text.trim: expected 'content' to be a string or nil, got number"));
    expect(() => trim(null)).toThrow(/got userdata/);
  });

  it('string: required, checked in parameter order', () => {
    const comment = checked('code', 'comment_line');
    expect(comment('lua', 'x')).toEqual(['lua', 'x']);
    expect(() => comment(undefined, 'x')).toThrow("aip.code.comment_line: expected 'lang_ext' to be a string, got nil");
    expect(() => comment(1, {})).toThrow(/'lang_ext'/);
    expect(() => comment('lua', {})).toThrow("aip.code.comment_line: expected 'comment_content' to be a string, got table");
  });

  it('an optional string may be nil or null', () => {
    const truncate = checked('text', 'truncate');
    expect(truncate('abc', 1)).toEqual(['abc', 1]);
    expect(truncate('abc', 1, null)).toEqual(['abc', 1, null]);
    expect(() => truncate('abc', 1, 5)).toThrow("aip.text.truncate: expected 'ellipsis' to be a string, got number");
  });

  it('other types are the function own business', () => {
    const f: Fn = () => 'same';
    expect(checked('yaml', 'stringify', f)).toBe(f);
    expect(checked('text', 'remove_first_lines')('a', 'not an integer')).toEqual(['a', 'not an integer']);
  });
});

describe('withArgChecks: what an entry declares', () => {
  it('style must, style accepted (with nilOk and with a name for the argument)', () => {
    expect(() => checked('csv', 'parse')(1)).toThrow('aip.csv.parse: content must be a string, got number');
    const sha = checked('hash', 'sha256');
    expect(sha(undefined)).toEqual([undefined]);
    expect(() => sha({})).toThrow('aip.hash.sha256 - accepted argument types are String or Nil, but was table');
    expect(() => checked('web', 'parse_url')(true)).toThrow('aip.web.parse_url argument - accepted argument types are String or Nil, but was boolean');
  });

  it('names: the word AIPack uses for a parameter; own: parameters the function checks itself', () => {
    expect(() => checked('md', 'extract_meta')(1)).toThrow("aip.md.extract_meta: expected 'content' to be a string or nil, got number");
    expect(checked('web', 'resolve_href')('a', 42)).toEqual(['a', 42]);
    expect(checked('text', 'extract_line_blocks')(42, { starts_with: '>' })).toEqual([42, { starts_with: '>' }]);
  });
});

describe('withArgChecks: path arguments, wordings of their own', () => {
  it('aip.file and aip.path take a number as its text, and refuse other types', () => {
    expect(checked('path', 'split')(12)).toEqual(['12']);
    expect(checked('file', 'save')(1, 2.5)).toEqual(['1', '2.5']);
    expect(() => checked('file', 'save')('a.txt', true)).toThrow(new LuaError("aip.file.save: expected 'content' to be a string, got boolean"));
    expect(() => checked('file', 'save_changes')('a.txt', {})).toThrow("aip.file.save_changes: expected 'content' to be a string, got table");
  });

  it('nullAsNil: the null sentinel passes as nil; nil is not turned into an argument', () => {
    expect(checked('path', 'parse')(null)).toEqual([null]);
    expect(checked('file', 'info')()).toEqual([]);
    expect(() => checked('path', 'parse')(true)).toThrow("aip.path.parse: expected 'path' to be a string or nil, got boolean");
    expect(() => checked('json', 'parse')(null)).toThrow("aip.json.parse: expected 'content' to be a string or nil, got userdata");
  });

  it('message: a wording of its own', () => {
    expect(() => checked('cmd', 'exec')(5)).toThrow('aip.cmd.exec - cmd_name must be a string, got number');
    expect(() => checked('semver', 'parse')({})).toThrow("Invalid version 'table': expected a string");
    expect(() => checked('udiffx', 'apply_file_changes')(false)).toThrow("aip.udiffx.apply_file_changes - expected 'content' to be a string, got boolean");
    expect(() => checked('hbs', 'render')(undefined, {})).toThrow("aip.hbs.render: expected 'template' to be a string, got nil");
    expect(() => checked('run', 'set_label')(1)).toThrow('aip.run.set_label: label must be a string, got number');
  });

  it('a parameter read after another is left to the function (its order is kept)', () => {
    expect(checked('semver', 'compare')('1.0.0', '>>', 3)).toEqual(['1.0.0', '>>', 3]);
    expect(checked('file', 'save_as_csv')(7, 'not a table')).toEqual([7, 'not a table']);
  });

  it('taskOnly: refused outside Data and Output before any argument is checked, then checked as declared', () => {
    const label = (stage: 'BeforeAll' | 'Data' | 'Output' | 'AfterAll') => withArgChecks('task', { set_label: echo }, stage).set_label as Fn;
    const outside = "Cannot call 'aip.task.set_label(...)' in a before all or after all code block. Only in Data or Output.";
    expect(() => label('BeforeAll')('l')).toThrow(new LuaError(outside));
    expect(() => label('AfterAll')(1)).toThrow(new LuaError(outside));
    expect(label('Data')('l')).toEqual(['l']);
    expect(() => label('Output')(1)).toThrow(new LuaError('aip.task.set_label: label must be a string, got number'));
    // a namespace of task-only functions must say which stage its functions are for
    expect(() => checked('task', 'pin')).toThrow(/aip\.task\.pin runs only in Data and Output/);
  });
});

describe('withArgChecks: the wrapper', () => {
  it('passes every argument on (the count too) and returns what the function returns', () => {
    const f = checked('text', 'split_first', (...args) => args.length);
    expect(f('a', '=', 'extra')).toBe(3);
    expect(f('a', '=')).toBe(2);
  });

  it('keeps the argument conversion mode a function is marked with', () => {
    const f = hostFn((...args: unknown[]) => args, { argMode: 'serde' });
    expect((checked('md', 'extract_refs', f) as HostFunction)[HOST_OPTIONS]).toEqual({ argMode: 'serde' });
  });

  it('a function under two names (an old name) is one function, named as the first', () => {
    const f: Fn = (s) => s;
    const t = withArgChecks('text', { ensure_single_trailing_newline: f, ensure_single_ending_newline: f });
    expect(t.ensure_single_ending_newline).toBe(t.ensure_single_trailing_newline);
    expect(() => (t.ensure_single_ending_newline as Fn)(1)).toThrow(/^aip\.text\.ensure_single_trailing_newline: /);
  });

  it('takes its functions in groups as it takes them merged, a later group\'s name in place of an earlier one', () => {
    const split: Fn = (...args) => ['split', ...args];
    const first: Fn = (...args) => ['first', ...args];
    const grouped = withArgChecks('text', [{ split_first: split, UA: 'x' }, { split_first: first, trim: echo }]);
    expect(Object.keys(grouped)).toEqual(['split_first', 'UA', 'trim']);
    expect((grouped.split_first as Fn)('a', '=')).toEqual(['first', 'a', '=']);
    expect(() => (grouped.trim as Fn)(1)).toThrow(/^aip\.text\.trim: /);
  });

  it('a function handed again for the same stage keeps its checked form; for another stage it gets a new one', () => {
    const pin: Fn = (...args) => args;
    const data = withArgChecks('task', { pin }, 'Data').pin;
    expect(withArgChecks('task', { pin }, 'Data').pin).toBe(data);
    const before = withArgChecks('task', { pin }, 'BeforeAll').pin as Fn;
    expect(before).not.toBe(data);
    expect(() => before(1, 'x')).toThrow(/Only in Data or Output/);
    expect((withArgChecks('task', { pin }, 'Data').pin as Fn)(1, 'x')).toEqual([1, 'x']);
  });

  it('constants pass as they are; a function without an entry is a programming error', () => {
    expect(withArgChecks('web', { UA_AIPACK: 'aipack' })).toEqual({ UA_AIPACK: 'aipack' });
    expect(() => withArgChecks('text', { no_such_fn: echo })).toThrow('aip.text.no_such_fn has no entry in functions.ts');
  });
});

describe('the checks a function makes itself', () => {
  it('optStr / reqStr / reqInt accept their type and name the argument otherwise', () => {
    expect(optStr(undefined, 'f')).toBeUndefined();
    expect(() => optStr(null, 'f')).toThrow(new LuaError("f: expected 'content' to be a string or nil, got userdata")); // the null sentinel
    expect(reqStr('x', 'f', 'a')).toBe('x');
    expect(() => reqStr(1, 'f', 'a')).toThrow(new LuaError("f: expected 'a' to be a string, got number"));
    expect(reqInt(-2, 'f', 'n', true)).toBe(-2);
    expect(() => reqInt(-2, 'f', 'n')).toThrow(new LuaError("f: expected 'n' to be a non-negative integer, got number -2"));
    expect(() => reqInt(1.5, 'f', 'n', true)).toThrow(/to be an integer, got number 1.5/);
  });

  it('pathArg coerces numbers and names the argument otherwise', () => {
    expect(pathArg(7, 'aip.x')).toBe('7');
    expect(() => pathArg(undefined, 'aip.x', 'src_path')).toThrow(new LuaError("aip.x: expected 'src_path' to be a string, got nil"));
  });
});
