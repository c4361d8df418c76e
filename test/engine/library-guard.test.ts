/**
 * Errors of the string library functions the sandbox wraps (to charge them by size and route heavy patterns) read as
 * when user code calls the library directly, as in AIPack: placed at the caller's line, never at a line of the
 * sandbox's own chunk. Both engines run this file.
 */
import { describe, expect, it } from 'vitest';
import { runLua } from '../helpers/lua.ts';
import { ENGINE_NAME } from '../helpers/engine.ts';
import { relayedError } from '../../src/engine/library-guard.ts';

// Calls one function from a non-tail position of snippet.aip and returns the message pcall caught.
const caught = (call: string) =>
  runLua(`local ok, e = pcall(function()\n  local r = ${call}\n  return r\nend)\nreturn tostring(e)`).value as string;
// The position the same line gives to an error() of its own: "<chunk>:<line>: ".
const here = caught('error("")');

describe(`string library errors (${ENGINE_NAME})`, () => {
  it.each([
    ['string.format("%d", "x")', "bad argument #2 to 'format' (number expected, got string)"],
    ['("abc"):gsub("(b)", "%2")', 'invalid capture index %2'],
    ['table.concat({ 1, {}, 3 })', "invalid value (table) at index 2 in table for 'concat'"],
    ['string.upper({})', "bad argument #1 to 'upper' (string expected, got table)"],
    // a pattern heavy enough to run on the step-counting matcher reports its errors the same way
    ['("a"):rep(5000):find(".-.-%")', "malformed pattern (ends with '%')"],
  ])('%s', (call, message) => {
    expect(here).toMatch(/snippet\.aip:\d+: $/);
    expect(caught(call).startsWith(here + message)).toBe(true);
  });

  it('called by pcall itself, as native Lua has it: no position, the name found in the loaded tables', () => {
    const { value } = runLua('local ok, e = pcall(string.format, "%d", "x") return e');
    expect(value).toBe("bad argument #2 to 'string.format' (number expected, got string)");
  });

  // Expected texts are native lua5.4's for the same lines.
  it('from a tail call (return string.format(...)) the error still carries the caller\'s line', () => {
    const tail = (call: string) => runLua(`local ok, e = pcall(function()\n  return ${call}\nend)\nreturn tostring(e)`).value as string;
    expect(tail('string.format("%d", "x")')).toBe(`${here}bad argument #2 to 'format' (number expected, got string)`);
    expect(tail('("x"):rep(5000):find("%")')).toBe(`${here}malformed pattern (ends with '%')`);
  });

  it('a method call does not count self (argument #1 is the first after the colon); bad self is named', () => {
    expect(caught('("x"):rep({})')).toBe(`${here}bad argument #1 to 'rep' (number expected, got table)`);
    expect(caught('string.rep("x", {})')).toBe(`${here}bad argument #2 to 'rep' (number expected, got table)`);
    expect(caught('({ rep = string.rep }):rep(1)')).toBe(`${here}calling 'rep' on bad self`);
  });

  it("names the function as the call does: a local alias by its name", () => {
    expect(caught('(function() local f = string.rep return f("x", {}) end)()')).toBe(`${here}bad argument #2 to 'f' (number expected, got table)`);
  });

  it('an error inside a coroutine.wrap function is placed at the caller, as Lua places it', () => {
    const e = caught('coroutine.wrap(function() error("boom") end)()');
    expect(e).toBe(`${here}${here}boom`);
  });

  it("keeps the position of an error raised in a gsub callback, and a callback's error without one as it is", () => {
    expect(caught('("abc"):gsub("b", function() error("boom") end)')).toBe(`${here}boom`);
    expect(caught('("abc"):gsub("b", function() error("plain", 0) end)')).toBe('plain');
    expect(caught('("abc"):gsub("b", function() error({ code = 7 }) end)')).toMatch(/^table: /);
  });
});

describe('the relay rule (relayedError)', () => {
  it('leaves an error that is not from a line of the sandbox chunk alone', () => {
    expect(relayedError("t.lua:3: boom", { name: 'format', namewhat: 'field' }, 'string.format')).toBeUndefined();
  });

  it('drops the sandbox position, and renames a bad argument after the call as the caller made it', () => {
    expect(relayedError('sandbox:12: oops', { name: null, namewhat: '' }, 'string.rep')).toEqual({ skip: 12, head: '', all: false });
    const bad = "sandbox:7: bad argument #2 to 'rep' (number expected)";
    expect(relayedError(bad, { name: 'rep', namewhat: 'field' }, 'string.rep')).toEqual({ skip: bad.indexOf(' (number'), head: "bad argument #2 to 'rep'", all: false });
    // called with no name (from pcall): the name found in the loaded tables
    expect(relayedError(bad, { name: null, namewhat: '' }, 'string.rep')?.head).toBe("bad argument #2 to 'string.rep'");
  });

  it('a method call does not count self; a bad self is named as Lua names it', () => {
    expect(relayedError("sandbox:1: bad argument #2 to 'rep' (x)", { name: 'rep', namewhat: 'method' }, 'string.rep')?.head).toBe("bad argument #1 to 'rep'");
    expect(relayedError("sandbox:1: bad argument #1 to 'rep' (x)", { name: 'rep', namewhat: 'method' }, 'string.rep')).toEqual({ skip: 11, head: "calling 'rep' on bad self", all: true });
  });
});
