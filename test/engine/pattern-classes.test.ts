// The character classes of the step-counting matcher, byte by byte, as Lua 5.4 gives them (native lua5.4:
// `for c = 0, 255 do if string.char(c):find("^%a$") then ... end end`, C locale).
import { describe, expect, it } from 'vitest';
import { matchClass } from '../../src/engine/pattern-classes.ts';

const code = (s: string) => s.charCodeAt(0);
const members = (cl: string) => {
  const out: number[] = [];
  for (let c = 0; c < 256; c++) if (matchClass(c, code(cl))) out.push(c);
  return out;
};
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const chars = (s: string) => [...s].map(code).sort((x, y) => x - y);

describe('pattern character classes', () => {
  it('holds the C locale\'s bytes for each class letter', () => {
    expect(members('d')).toEqual(range(48, 57));
    expect(members('a')).toEqual([...range(65, 90), ...range(97, 122)]);
    expect(members('l')).toEqual(range(97, 122));
    expect(members('u')).toEqual(range(65, 90));
    expect(members('w')).toEqual([...range(48, 57), ...range(65, 90), ...range(97, 122)]);
    expect(members('x')).toEqual([...range(48, 57), ...range(65, 70), ...range(97, 102)]);
    expect(members('s')).toEqual([9, 10, 11, 12, 13, 32]);
    expect(members('c')).toEqual([...range(0, 31), 127]);
    expect(members('g')).toEqual(range(33, 126));
    expect(members('p')).toEqual(chars('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'));
    expect(members('z')).toEqual([0]);
  });

  it('an upper-case letter is the complement; a letter that names no class matches itself; bytes past 127 are in none', () => {
    for (const cl of 'acdglpsuwxz') expect(members(cl.toUpperCase())).toEqual(range(0, 255).filter((c) => !members(cl).includes(c)));
    expect(members('q')).toEqual([code('q')]);
    expect(members('.')).toEqual([code('.')]);
    expect(range(128, 255).some((c) => 'acdglpsuwx'.split('').some((cl) => matchClass(c, code(cl))))).toBe(false);
  });
});
