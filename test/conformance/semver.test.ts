import { conformance, type Case } from './support.ts';

const S = 'aip_semver.rs';
const cases: Case[] = [];
const compare: [string, string, string, boolean, string][] = [
  ['1.2.3', '>', '1.2.0', true, 'basic'],
  ['1.2.3', '<', '1.3.0', true, 'basic'],
  ['1.2.3', '=', '1.2.3', true, 'basic'],
  ['1.2.3', '==', '1.2.3', true, 'basic'],
  ['1.2.3', '>=', '1.2.3', true, 'basic'],
  ['1.2.3', '<=', '1.2.3', true, 'basic'],
  ['1.2.3', '>', '1.2.3', false, 'basic'],
  ['1.2.3', '<', '1.2.3', false, 'basic'],
  ['1.2.3', '!=', '1.2.0', true, 'basic'],
  ['1.2.3', '~=', '1.2.0', true, 'basic'],
  ['0.6.12-WIP', '>', '0.6.9', true, 'basic'],
  ['0.6.7-wip', '<', '0.6.8', true, 'basic'],
  ['0.6.7-wip', '<', '0.6.7', true, 'basic'],
  ['0.6.7-alpha', '<', '0.6.7', true, 'basic'],
  ['0.6.7-alpha.1', '<', '0.6.7-alpha.2', true, 'basic'],
  ['0.6.7-alpha.1', '<', '0.6.7-beta', true, 'basic'],
  ['1.2.3-alpha', '>', '1.2.0', true, 'with_prerelease'],
  ['1.2.0', '<', '1.2.3-alpha', true, 'with_prerelease'],
  ['1.0.0+build', '=', '1.0.0', false, 'with_prerelease'],
  ['1.2.3-alpha', '<', '1.2.3', true, 'with_prerelease'],
  ['1.2.3-alpha', '<', '1.2.4', true, 'with_prerelease'],
  ['1.2.3', '>', '1.2.3-alpha', true, 'with_prerelease'],
  ['1.2.3-alpha', '!=', '1.2.3', true, 'with_prerelease'],
  ['1.0.0+build', '!=', '1.0.0', true, 'with_prerelease'],
  ['1.2.3-alpha', '~=', '1.2.3', true, 'with_prerelease'],
];
for (const [a, op, b, want, test] of compare) {
  cases.push({ up: `${S}::test_lua_semver_compare_${test}`, lua: `return aip.semver.compare("${a}", "${op}", "${b}")`, expect: want });
}
cases.push({
  up: `${S}::test_lua_semver_parse`,
  lua: 'local r = aip.semver.parse("1.2.3-beta.1+build.123")\nreturn { major = r.major, minor = r.minor, patch = r.patch, prerelease = r.prerelease, build = r.build }',
  expect: { major: 1, minor: 2, patch: 3, prerelease: 'beta.1', build: 'build.123' },
});
for (const [v, want] of [['1.2.3', false], ['1.2.3-beta', true], ['0.6.7-WIP', true], ['1.0.0+build.123', false], ['1.0.0-alpha+build.123', true]] as [string, boolean][]) {
  cases.push({ up: `${S}::test_lua_semver_is_prerelease`, lua: `return aip.semver.is_prerelease("${v}")`, expect: want });
}
for (const [v, want] of [['1.2.3', true], ['1.2.3-beta', true], ['0.6.7-WIP', true], ['invalid', false], ['1.0', false], ['1.0.0+build.123', true]] as [string, boolean][]) {
  cases.push({ up: `${S}::test_lua_semver_valid`, lua: `return aip.semver.valid("${v}")`, expect: want });
}

conformance('aip.semver', cases);
