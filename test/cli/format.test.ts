import { describe, expect, it } from 'vitest';
import { errorLine, formatBaseWrites, formatFiles, formatTrace, hintOf, noAiHint, toJsonValue, truncate } from '../../src/cli/format.ts';
import { Trace } from '../../src/aip/support/trace.ts';

// colours are off under test (no TTY), so the texts are plain
describe('CLI formatting', () => {
  it('toJsonValue writes nil as null, list holes included', () => {
    expect(toJsonValue({ a: undefined, b: [1, undefined, { c: undefined }] })).toEqual({ a: null, b: [1, null, { c: null }] });
  });

  it('truncate keeps one line of at most n characters', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('a\nb', 10)).toBe('a⏎b');
  });

  it('formatTrace writes one line per event, indented by depth, with agent text escaped', () => {
    const t = new Trace();
    t.record({ kind: 'file', depth: 0, agent: 'a', op: 'write', path: 'src/x.ts' });
    t.record({ kind: 'print', depth: 1, agent: 'b', text: 'hi\u001b[2J' });
    t.record({ kind: 'note', depth: 0, agent: 'a', topic: 'cmd', data: {} });
    expect(formatTrace(t)).toBe('  write src/x.ts\n    print hi\\x1b[2J');
  });

  it('formatFiles says whether the files were written', () => {
    expect(formatFiles({ created: ['a'], changed: ['b'], deleted: ['c'] }, 'dry')).toBe(
      'files (not written; use --write):\n  created a\n  changed b\n  deleted c',
    );
    expect(formatFiles({ created: [], changed: [], deleted: [] }, 'written')).toBe('files: none changed');
    expect(formatFiles({ created: ['a'], changed: [], deleted: [] }, 'run-failed')).toBe('files (not written: the run failed):\n  created a');
  });

  it('formatBaseWrites names the AIPack base files kept in memory', () => {
    const t = new Trace();
    t.record({ kind: 'file', depth: 0, agent: 'a', op: 'write', path: '/home/u/.aipack-base/x.md' });
    t.record({ kind: 'file', depth: 0, agent: 'a', op: 'write', path: 'src/y.ts' });
    expect(formatBaseWrites(t, '/ws', undefined)).toBe('aipack base (saved in memory only, never written):\n  /home/u/.aipack-base/x.md');
    expect(formatBaseWrites(new Trace(), '/ws', undefined)).toBeUndefined();
  });

  it('errorLine / hintOf / noAiHint pick the line a user needs', () => {
    expect(errorLine('Lua error:\nSub-agent [a] failed: boom\nstack')).toBe('Sub-agent [a] failed: boom');
    expect(hintOf(new Error('no match\nhint: add a [[response]]'))).toBe('add a [[response]]');
    expect(hintOf(new Error('x'))).toBeUndefined();
    const noAi = new Error('no scripted AI response for task 1');
    expect(noAiHint(noAi, false)).toMatch(/^no --ai file was given/);
    expect(noAiHint(noAi, true)).toBeUndefined();
  });
});
