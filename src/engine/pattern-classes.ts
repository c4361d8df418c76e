/**
 * The character classes of Lua patterns (`%a`, `%d`, ... and their upper-case complements), as lstrlib.c's
 * match_class reads them in the C locale: the step-counting matcher (pattern.ts) tests each subject byte with them.
 */

const isalpha = (c: number) => (97 <= c && c <= 122) || (65 <= c && c <= 90);
export const isdigit = (c: number) => 48 <= c && c <= 57;
const iscntrl = (c: number) => (0 <= c && c <= 0x1f) || c === 0x7f;
const isgraph = (c: number) => 33 <= c && c <= 126;
const islower = (c: number) => 97 <= c && c <= 122;
const isupper = (c: number) => 65 <= c && c <= 90;
const isalnum = (c: number) => isalpha(c) || isdigit(c);
const ispunct = (c: number) => isgraph(c) && !isalnum(c);
const isspace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const isxdigit = (c: number) => isdigit(c) || (65 <= c && c <= 70) || (97 <= c && c <= 102);

/** whether byte `c` is in the class of letter `cl` (a letter that names no class matches itself) */
export function matchClass(c: number, cl: number): boolean {
  let res: boolean;
  switch (cl | 32) {
    case 97: res = isalpha(c); break; // a
    case 99: res = iscntrl(c); break; // c
    case 100: res = isdigit(c); break; // d
    case 103: res = isgraph(c); break; // g
    case 108: res = islower(c); break; // l
    case 112: res = ispunct(c); break; // p
    case 115: res = isspace(c); break; // s
    case 117: res = isupper(c); break; // u
    case 119: res = isalnum(c); break; // w
    case 120: res = isxdigit(c); break; // x
    case 122: res = c === 0; break; // z (deprecated, still in both engines)
    default: return cl === c;
  }
  return isupper(cl) ? !res : res;
}
