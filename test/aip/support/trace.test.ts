import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { summarize, Trace } from '../../../src/aip/support/trace.ts';

describe('summarize (what the trace keeps of values below the top agent)', () => {
  it('keeps short values, and replaces long strings by their size, hash and first bytes', () => {
    expect(summarize({ a: 'short', n: [1, 2] })).toEqual({ a: 'short', n: [1, 2] });
    for (const size of [300, 100_000]) {
      const s = 'é' + 'x'.repeat(size);
      const sha1 = createHash('sha1').update(s).digest('hex').slice(0, 12);
      expect(summarize(s)).toBe(`<string: ${size + 2} bytes, sha1 ${sha1}> ${JSON.stringify(s.slice(0, 64))}...`);
    }
  });

  it('gives equal strings the same summary and different ones their own (recent big summaries are reused)', () => {
    const a = 'a'.repeat(200_000);
    const b = 'a'.repeat(199_999) + 'b';
    expect(summarize(a)).toBe(summarize('a'.repeat(200_000)));
    expect(summarize(b)).not.toBe(summarize(a));
    expect(summarize([a, b])).toEqual([summarize(a), summarize(b)]);
  });
});

describe('Trace kinds', () => {
  it('keeps every event by default, and only the kinds it is given otherwise', () => {
    const print = { kind: 'print', depth: 0, agent: 'a', text: 'hi' } as const;
    const file = { kind: 'file', depth: 0, agent: 'a', op: 'write', path: 'x.txt' } as const;
    const all = new Trace();
    all.record(print);
    all.record(file);
    expect(all.events).toEqual([print, file]);
    expect(all.keeps('agent_call')).toBe(true);
    const files = new Trace(new Set(['file']));
    files.record(print);
    files.record(file);
    expect(files.events).toEqual([file]);
    expect([files.keeps('file'), files.keeps('agent_call')]).toEqual([true, false]);
  });
});
