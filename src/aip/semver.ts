/**
 * `aip.semver.*` (docs/aipack.md section 7.5): strict SemVer 2.0 as the Rust `semver` crate reads it
 * (three numeric components, no "v", no leading zeros; build metadata takes part in ordering and equality).
 */
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
  build: string[];
}

const U64_MAX = (1n << 64n) - 1n;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isIdentChar = (c: string | undefined): boolean => c !== undefined && /[0-9A-Za-z-]/.test(c);

class SemVerSyntax extends Error {}

/** Parses a version; throws SemVerSyntax with the reason (without the "Invalid version" prefix). */
export function parseSemVer(text: string): SemVer {
  if (text === '') throw new SemVerSyntax('empty string, expected a semver version');
  let i = 0;
  const num = (label: string): bigint => {
    const c = text[i];
    if (c === undefined) throw new SemVerSyntax(`unexpected end of input while parsing ${label} version number`);
    if (!isDigit(c)) throw new SemVerSyntax(`unexpected character '${c}' while parsing ${label} version number`);
    const start = i;
    while (isDigit(text[i])) i++;
    const digits = text.slice(start, i);
    if (digits.length > 1 && digits[0] === '0') throw new SemVerSyntax(`invalid leading zero in ${label} version number`);
    const n = BigInt(digits);
    if (n > U64_MAX) throw new SemVerSyntax(`value of ${label} version number exceeds u64::MAX`);
    return n;
  };
  const dot = (after: string, next: string): void => {
    const c = text[i];
    if (c === undefined) throw new SemVerSyntax(`unexpected end of input while parsing ${next} version number`);
    if (c !== '.') throw new SemVerSyntax(`unexpected character '${c}' after ${after} version number`);
    i++;
  };
  const idents = (what: string, numericNoLeadingZero: boolean, stop: string | undefined): string[] => {
    const out: string[] = [];
    for (;;) {
      const start = i;
      while (isIdentChar(text[i])) i++;
      const id = text.slice(start, i);
      if (id === '') {
        const c = text[i];
        if (c === undefined || c === '.' || c === stop) throw new SemVerSyntax(`empty identifier segment in ${what}`);
        throw new SemVerSyntax(`unexpected character '${c}' in ${what}`);
      }
      if (numericNoLeadingZero && /^\d+$/.test(id) && id.length > 1 && id[0] === '0') {
        throw new SemVerSyntax(`invalid leading zero in ${what}`);
      }
      out.push(id);
      const c = text[i];
      if (c === '.') {
        i++;
        continue;
      }
      if (c === undefined || c === stop) return out;
      throw new SemVerSyntax(`unexpected character '${c}' in ${what}`);
    }
  };

  const major = num('major');
  dot('major', 'minor');
  const minor = num('minor');
  dot('minor', 'patch');
  const patch = num('patch');
  let pre: string[] = [];
  let build: string[] = [];
  if (text[i] === '-') {
    i++;
    pre = idents('pre-release identifier', true, '+');
  }
  if (text[i] === '+') {
    i++;
    build = idents('build metadata', false, undefined);
  }
  if (i < text.length) throw new SemVerSyntax(`unexpected character '${text[i]}' after patch version number`);
  return { major, minor, patch, pre, build };
}

const cmpBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);
const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Identifier lists: numeric < alphanumeric, numerics by value, alphanumerics by ASCII, longer list wins ties. */
function cmpIdents(a: string[], b: string[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    const an = /^\d+$/.test(a[k]);
    const bn = /^\d+$/.test(b[k]);
    let d: number;
    if (an && bn) d = cmpBig(BigInt(a[k]), BigInt(b[k])) || a[k].length - b[k].length;
    else if (an) d = -1;
    else if (bn) d = 1;
    else d = cmpStr(a[k], b[k]);
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(a.length - b.length);
}

export function compareSemVer(a: SemVer, b: SemVer): number {
  const core = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (core !== 0) return core;
  // a release sorts after its pre-releases
  if (a.pre.length === 0 && b.pre.length > 0) return 1;
  if (a.pre.length > 0 && b.pre.length === 0) return -1;
  const pre = cmpIdents(a.pre, b.pre);
  if (pre !== 0) return pre;
  // no build metadata sorts before any build metadata
  if (a.build.length === 0 || b.build.length === 0) return Math.sign(a.build.length - b.build.length);
  return cmpIdents(a.build, b.build);
}

/**
 * A version argument, parsed. Its entry checks that it is a string, except compare's second version, read only
 * after the operator: that one is checked here, in the same words.
 */
function versionArg(v: unknown): SemVer {
  if (typeof v !== 'string') throw new LuaError(`Invalid version '${luaTypeName(v)}': expected a string`);
  try {
    return parseSemVer(v);
  } catch (e) {
    if (e instanceof SemVerSyntax) throw new LuaError(`Invalid version '${v}': ${e.message}`);
    throw e;
  }
}

const OPS: Record<string, (d: number) => boolean> = {
  '<': (d) => d < 0,
  '<=': (d) => d <= 0,
  '=': (d) => d === 0,
  '==': (d) => d === 0,
  '>=': (d) => d >= 0,
  '>': (d) => d > 0,
  '!=': (d) => d !== 0,
  '~=': (d) => d !== 0,
};

function compare(v1: unknown, op: unknown, v2: unknown): boolean {
  const a = versionArg(v1);
  const test = typeof op === 'string' && Object.prototype.hasOwnProperty.call(OPS, op) ? OPS[op] : undefined;
  if (!test) throw new LuaError(`Invalid operator '${typeof op === 'string' ? op : luaTypeName(op)}'`);
  const b = versionArg(v2);
  return test(compareSemVer(a, b));
}

function parse(v: unknown): Record<string, unknown> {
  const s = versionArg(v);
  const out: Record<string, unknown> = { major: Number(s.major), minor: Number(s.minor), patch: Number(s.patch) };
  if (s.pre.length > 0) out.prerelease = s.pre.join('.');
  if (s.build.length > 0) out.build = s.build.join('.');
  return out;
}

const is_prerelease = (v: unknown): boolean => versionArg(v).pre.length > 0;

function valid(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    parseSemVer(v);
    return true;
  } catch {
    return false;
  }
}

const SEMVER = withArgChecks('semver', { compare, parse, is_prerelease, valid });

export const semver: AipNamespaceFactory = sharedNamespace(SEMVER);
