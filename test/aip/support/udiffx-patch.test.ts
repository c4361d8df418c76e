// Properties of the FILE_PATCH engine; the upstream cases are in
// test/conformance/udiffx.test.ts.
import '../../helpers/fc-seed.ts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPatch, lineMatches, splitHunks } from '../../../src/aip/support/udiffx-patch.ts';

// files of distinct lines, so a hunk has one place to go
const fileLines = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9 =;(){}]{2,20}$/), { minLength: 3, maxLength: 30 }).map((ls) => ls.map((l, i) => `${l} #${i}`));
const fileAndLine = fileLines.chain((lines) => fc.tuple(fc.constant(lines), fc.nat({ max: lines.length - 1 })));
const text = (lines: string[]) => lines.join('\n') + '\n';

/** A hunk replacing line `at` by `next`, with up to two context lines each side, each given through `ctx`. */
function hunkFor(lines: string[], at: number, next: string, ctx: (l: string) => string = (l) => l): string {
  const out = ['@@'];
  for (let i = Math.max(0, at - 2); i < at; i++) out.push(' ' + ctx(lines[i]));
  out.push('-' + lines[at], '+' + next);
  for (let i = at + 1; i < Math.min(lines.length, at + 3); i++) out.push(' ' + ctx(lines[i]));
  return out.join('\n') + '\n';
}

describe('udiffx FILE_PATCH engine', () => {
  it('a hunk with exact context replaces exactly its line (strict tier)', () => {
    fc.assert(
      fc.property(fileAndLine, ([lines, at]) => {
        const r = applyPatch(text(lines), hunkFor(lines, at, 'CHANGED'));
        const want = [...lines];
        want[at] = 'CHANGED';
        expect(r.hunkErrors).toEqual([]);
        expect(r.newContent).toBe(text(want));
        expect(r.maxTier).toBe('Strict');
      }),
      { numRuns: 60 },
    );
  });

  it('context re-indented or with collapsed spaces still locates the hunk, and the file keeps its own text', () => {
    fc.assert(
      fc.property(fileAndLine, fc.constantFrom('  ', '\t'), ([lines, at], indent) => {
        const r = applyPatch(text(lines), hunkFor(lines, at, 'CHANGED', (l) => indent + l.replace(/ +/g, ' ')));
        const want = [...lines];
        want[at] = 'CHANGED';
        expect(r.hunkErrors).toEqual([]);
        expect(r.newContent).toBe(text(want));
        expect(['Strict', 'Resilient']).toContain(r.maxTier);
      }),
      { numRuns: 60 },
    );
  });

  it('a hunk whose context is not in the file fails alone, with a clear cause, and changes nothing', () => {
    fc.assert(
      fc.property(fileAndLine, ([lines, at]) => {
        const bad = `@@\n NOT IN THE FILE ${'x'.repeat(12)}\n-${lines[at]}\n+CHANGED\n`;
        const original = text(lines);
        const r = applyPatch(original, bad);
        expect(r.newContent).toBe(original);
        expect(r.hunkErrors).toHaveLength(1);
        expect(r.hunkErrors[0].cause).toBe('patch completion error: Could not find patch context in original file (starting search from line 1)');
        expect(r.hunkErrors[0].hunk_body).toBe(bad);
      }),
      { numRuns: 40 },
    );
  });

  it('CRLF files give the same result as LF files, written with LF', () => {
    fc.assert(
      fc.property(fileAndLine, ([lines, at]) => {
        const hunk = hunkFor(lines, at, 'CHANGED');
        expect(applyPatch(lines.join('\r\n') + '\r\n', hunk).newContent).toBe(applyPatch(text(lines), hunk).newContent);
      }),
      { numRuns: 30 },
    );
  });

  it('a bad hunk between good ones: the good ones apply, the bad one is reported (partial application)', () => {
    const original = 'a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n';
    const r = applyPatch(original, '@@\n a = 1\n-b = 2\n+b = 20\n@@\n nope\n-zzz\n+yyy\n@@\n d = 4\n-e = 5\n+e = 50\n');
    expect(r.newContent).toBe('a = 1\nb = 20\nc = 3\nd = 4\ne = 50\n');
    expect(r.totalHunks).toBe(3);
    expect(r.hunkErrors.map((e) => e.hunk_body)).toEqual(['@@\n nope\n-zzz\n+yyy\n']);
  });

  it('needs the fuzzy tier for a case or backtick difference, and says so', () => {
    const r = applyPatch('Run `npm test` before Pushing.\nthen merge\n', '@@\n-run npm test before pushing.\n+Run `npm test` first.\n then merge\n');
    expect(r.newContent).toBe('Run `npm test` first.\nthen merge\n');
    expect(r.maxTier).toBe('Fuzzy');
  });

  it('a tilde range with too few anchors is a per-hunk error naming the rule', () => {
    const r = applyPatch('a\nb\nc\nd\n', '@@\n-a\n~\n-c\n-d\n');
    expect(r.hunkErrors[0].cause).toBe('patch completion error: Tilde range-remove `~` at hunk line 2 requires at least 2 removal lines above, found 1');
    expect(r.newContent).toBe('a\nb\nc\nd\n');
  });

  it('ignores hunks with nothing to do and a line-numbered header is just a hunk start', () => {
    expect(splitHunks('@@ -1,2 +1,2 @@\n a\n b\n@@\n a\n+x\n')).toEqual([[' a', '+x']]);
  });

  it('matching tiers: strict is exact, resilient forgives spacing, fuzzy forgives case', () => {
    expect(lineMatches('  let x = 1;', 'let x = 1;', 'Strict')).toBe(false);
    expect(lineMatches('  let x = 1;', 'let  x = 1', 'Resilient')).toBe(true);
    expect(lineMatches('Let X = 1', 'let x = 1', 'Resilient')).toBe(false);
    expect(lineMatches('Let X = 1', 'let x = 1', 'Fuzzy')).toBe(true);
    // a suffix must not turn a comment into code
    expect(lineMatches('// do something here', 'do something here', 'Resilient')).toBe(false);
  });
});
