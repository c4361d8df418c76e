import { describe, expect, it } from 'vitest';
import { ScriptedCommands, ScriptedIoError, ScriptedWeb } from '../../../src/aip/support/scripted-io.ts';

describe('ScriptedCommands', () => {
  it('answers in file order, each entry once unless reusable, and reports the unused ones', () => {
    const c = new ScriptedCommands([{ match: '^git', stdout: 'one' }, { match: '^git status', stdout: 'two', exit: 1 }, { match: 'never' }], 'a.toml');
    expect(c.answer('git status')).toEqual({ stdout: 'one', stderr: '', exit: 0 });
    expect(c.answer('git status')).toEqual({ stdout: 'two', stderr: '', exit: 1 });
    expect(c.answer('git status')).toBeUndefined();
    expect(c.remaining().map((e) => e.match)).toEqual(['never']);
    const r = new ScriptedCommands([{ match: 'x', reusable: true }], 'a.toml');
    expect([r.answer('x'), r.answer('x')].every((a) => a?.exit === 0)).toBe(true);
  });

  it('refuses malformed entries, naming the file and entry', () => {
    expect(() => new ScriptedCommands([{ stdout: 'x' }], 'a.toml')).toThrow(new ScriptedIoError("a.toml: [[command]] #1: missing 'match'"));
    expect(() => new ScriptedCommands([{ match: 'x', exit: 'no' }], 'a.toml')).toThrow("a.toml: [[command]] #1: 'exit' must be an integer, got string");
    expect(() => new ScriptedCommands([{ match: 'x', other: 1 }], 'a.toml')).toThrow(/unknown key 'other'/);
    expect(() => new ScriptedCommands([{ match: '(' }], 'a.toml')).toThrow(/invalid regex in 'match'/);
  });
});

describe('ScriptedWeb', () => {
  it('matches URL and method, with defaults for status and content', () => {
    const web = new ScriptedWeb([{ match: 'api', method: 'post', status: 201 }, { match: 'example\\.com', content: 'hi', headers: { a: 'b' } }], 'a.toml');
    expect(web.answer('GET', 'https://api.x')).toBeUndefined();
    expect(web.answer('POST', 'https://api.x')).toEqual({ status: 201, content: '', content_type: undefined, headers: undefined });
    expect(web.answer('GET', 'https://example.com/')).toEqual({ status: 200, content: 'hi', content_type: undefined, headers: { a: 'b' } });
    expect(() => new ScriptedWeb([{ match: 'x', method: 'PUT' }], 'a.toml')).toThrow(`a.toml: [[web]] #1: 'method' must be "GET" or "POST", got "PUT"`);
  });
});
