import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { compareSemVer, parseSemVer, semver } from '../../src/aip/semver.ts';
import type { StageEnv } from '../../src/aip/types.ts';

const sv = semver({} as StageEnv) as Record<string, (...args: unknown[]) => unknown>;

describe('aip.semver.compare', () => {
  it('compares core versions with every operator', () => {
    expect(sv.compare('1.2.3', '>', '1.2.0')).toBe(true);
    expect(sv.compare('0.8.15', '>', '0.8.4')).toBe(true); // numeric, not lexical
    expect(sv.compare('0.8.4', '>', '0.8.4')).toBe(false);
    expect(sv.compare('0.8.4', '>=', '0.8.4')).toBe(true);
    expect(sv.compare('1.0.0', '<', '1.0.1')).toBe(true);
    expect(sv.compare('1.0.0', '<=', '0.9.9')).toBe(false);
    expect(sv.compare('1.0.0', '=', '1.0.0')).toBe(true);
    expect(sv.compare('1.0.0', '==', '1.0.0')).toBe(true);
    expect(sv.compare('1.0.0', '!=', '1.0.0')).toBe(false);
    expect(sv.compare('1.0.0', '~=', '2.0.0')).toBe(true);
  });

  it('orders pre-releases before the release, per SemVer identifier rules', () => {
    expect(sv.compare('0.6.7-wip', '<', '0.6.7')).toBe(true);
    const ordered = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    for (let i = 0; i + 1 < ordered.length; i++) expect(sv.compare(ordered[i], '<', ordered[i + 1])).toBe(true);
  });

  it('lets build metadata take part in equality and order', () => {
    expect(sv.compare('1.0.0+build', '==', '1.0.0')).toBe(false);
    expect(sv.compare('1.0.0+build', '>', '1.0.0')).toBe(true);
    expect(sv.compare('1.0.0+build', '==', '1.0.0+build')).toBe(true);
    expect(sv.compare('1.0.0-rc.1+b', '<', '1.0.0')).toBe(true);
  });

  it('raises on invalid versions and operators', () => {
    expect(() => sv.compare('v1.0.0', '>', '1.0.0')).toThrow(/^Invalid version 'v1\.0\.0': unexpected character 'v' while parsing major version number$/);
    expect(() => sv.compare('1.0.0', '>', '1.0')).toThrow(/^Invalid version '1\.0': unexpected end of input while parsing patch version number$/);
    expect(() => sv.compare('01.0.0', '>', '1.0.0')).toThrow(/invalid leading zero in major version number/);
    expect(() => sv.compare('1.0.0-01', '>', '1.0.0')).toThrow(/invalid leading zero in pre-release identifier/);
    expect(() => sv.compare('1.0.0-a..b', '>', '1.0.0')).toThrow(/empty identifier segment in pre-release identifier/);
    expect(() => sv.compare('1.0.0 ', '>', '1.0.0')).toThrow(/unexpected character ' ' after patch version number/);
    expect(() => sv.compare('1.0.0', '>>', '1.0.0')).toThrow(/^Invalid operator '>>'$/);
  });

  it('is a total order consistent with itself (property)', () => {
    const ident = fc.oneof(fc.nat({ max: 20 }).map(String), fc.constantFrom('alpha', 'beta', 'rc', 'x-y', 'A'));
    const version = fc
      .record({
        major: fc.nat({ max: 3 }),
        minor: fc.nat({ max: 3 }),
        patch: fc.nat({ max: 3 }),
        pre: fc.array(ident, { maxLength: 3 }),
        build: fc.array(ident, { maxLength: 2 }),
      })
      .map((r) => `${r.major}.${r.minor}.${r.patch}${r.pre.length ? `-${r.pre.join('.')}` : ''}${r.build.length ? `+${r.build.join('.')}` : ''}`);
    fc.assert(
      fc.property(version, version, (a, b) => {
        const d = compareSemVer(parseSemVer(a), parseSemVer(b));
        // === rather than toBe: swapping equal versions gives 0 where -d is -0
        expect(compareSemVer(parseSemVer(b), parseSemVer(a)) === -d).toBe(true);
        expect(d === 0).toBe(a === b);
        expect(sv.compare(a, '<', b)).toBe(d < 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('aip.semver parse / is_prerelease / valid', () => {
  it('parses into components', () => {
    expect(sv.parse('1.2.3-beta.1+build.123')).toEqual({ major: 1, minor: 2, patch: 3, prerelease: 'beta.1', build: 'build.123' });
    expect(sv.parse('0.8.15')).toEqual({ major: 0, minor: 8, patch: 15 });
    expect(() => sv.parse('invalid')).toThrow(/^Invalid version 'invalid': /);
  });
  it('is_prerelease', () => {
    expect(sv.is_prerelease('1.2.3-beta')).toBe(true);
    expect(sv.is_prerelease('1.2.3')).toBe(false);
    expect(sv.is_prerelease('1.0.0+build')).toBe(false);
    expect(() => sv.is_prerelease('x')).toThrow(/Invalid version/);
  });
  it('valid never raises', () => {
    expect(sv.valid('1.2.3')).toBe(true);
    expect(sv.valid('1.2.3-alpha.1')).toBe(true);
    expect(sv.valid('1.0.0+001')).toBe(true); // leading zeros are fine in build metadata
    expect(sv.valid('1.0')).toBe(false);
    expect(sv.valid('invalid')).toBe(false);
    expect(sv.valid(undefined)).toBe(false);
    expect(sv.valid({})).toBe(false);
  });
});
