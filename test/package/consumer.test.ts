/**
 * The packed package, installed in a fresh project, used the four ways a user does: the CLI (`init`, `test`,
 * `check`), a vitest file, a plain Node ESM script, and the user's own strict `tsc` over its types.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, inProject, packRepo } from '../helpers/consumer.ts';

let dir: string;
let tarball: string;
const scratch = mkdtempSync(nodePath.join(os.tmpdir(), 'coder-subagents-pack-'));

beforeAll(() => {
  tarball = packRepo(scratch);
  dir = consumerProject(tarball, ['typescript', 'vitest', '@types/node']);
}, 240_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** npx as a user types it; npm's own config warnings (of this machine's npmrc) are not ours. */
const cli = (...args: string[]) => {
  const r = inProject(dir, 'npx', ['--no', '--', 'coder-subagents', ...args]);
  return { ...r, stderr: r.stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') };
};
const bin = (tool: string) => nodePath.join(dir, 'node_modules', '.bin', tool);

describe('the packed package in a fresh project', () => {
  it('ships the compiled package only: no sources, tests, bench or CI files', () => {
    const listing = inProject(scratch, 'tar', ['tzf', tarball]).stdout.split('\n').filter(Boolean);
    expect(listing).toContain('package/dist/index.js');
    expect(listing).toContain('package/dist/index.d.ts');
    expect(listing).toContain('package/dist/aip/prelude.lua');
    expect(listing).toContain('package/pack/SUB_AGENTS.md');
    const unwanted = listing.filter((f) => /^package\/(src|test|bench|\.ci|lua|scripts|types)\//.test(f) || /\.ts$/.test(f.replace(/\.d\.ts$/, '')));
    // the demo workspace holds .ts files of its pretend project; they are data, not code
    expect(unwanted.filter((f) => !f.startsWith('package/fixtures/demo/'))).toEqual([]);
    const installed = JSON.parse(readFileSync(nodePath.join(dir, 'node_modules/coder-subagents/package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies)).not.toContain('tsx');
    expect(existsSync(nodePath.join(dir, 'node_modules/tsx'))).toBe(false);
  });

  it('runs init, test and check through npx', () => {
    const init = cli('init', 'prompt-refiner', '--dir', 'agents');
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const test = cli('test', 'agents');
    expect(test.stdout).toMatch(/✓ agents\/prompt-refiner\.contract\.toml › adds a focus line/);
    expect(test.stdout).toMatch(/\n3 passed, 0 failed/);
    expect(test.code).toBe(0);
    // the editor setup points at the definitions shipped in the package
    expect(JSON.parse(readFileSync(nodePath.join(dir, '.luarc.json'), 'utf8'))['workspace.library']).toEqual(['node_modules/coder-subagents/lua-types']);
    expect(readFileSync(nodePath.join(dir, 'agents/prompt-refiner.aip'), 'utf8')).toContain('---@param input CoderPreInput');
    const junit = cli('test', '--reporter', 'junit', '--output-file', 'r.xml');
    expect(junit.code).toBe(0);
    expect(readFileSync(nodePath.join(dir, 'r.xml'), 'utf8')).toContain('<testsuite name="agents/prompt-refiner.contract.toml" tests="3" failures="0"');
    const named = cli('test', '-t', 'focus line');
    expect(named.stdout).toMatch(/^✓ agents\/prompt-refiner\.contract\.toml › adds a focus line and a context glob \(pre\) \d+ ms$/m);
    expect(named.stdout).toMatch(/\n1 passed, 0 failed/);
    const check = cli('check', 'agents');
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const version = cli('--version');
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(nodePath.join(dir, 'node_modules/coder-subagents/package.json'), 'utf8')).version);
  });

  it('is a library for a plain Node ESM script', () => {
    writeFileSync(
      nodePath.join(dir, 'use.mjs'),
      [
        "import { runContractFile, summaryLine } from 'coder-subagents';",
        "const r = runContractFile('agents/prompt-refiner.contract.toml');",
        'const count = (s) => r.cases.filter((c) => c.status === s).length;',
        "console.log(summaryLine({ passed: count('passed'), failed: count('failed'), skipped: count('skipped') }));",
      ].join('\n'),
    );
    const r = inProject(dir, 'node', ['use.mjs']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('3 passed, 0 failed\n');
  });

  it('is a library for a vitest file', () => {
    writeFileSync(
      nodePath.join(dir, 'refiner.test.ts'),
      [
        "import { expect, it } from 'vitest';",
        "import { runStage } from 'coder-subagents';",
        "it('adds the focus line', () => {",
        "  const r = runStage({ agent: 'agents/prompt-refiner.aip', stage: 'pre', prompt: 'Fix the login form', config: { config: { focus: 'auth' } } });",
        "  expect(r.prompts).toEqual(['Fix the login form', 'Focus: auth']);",
        '});',
        "it('fails when the expectation is wrong', () => {",
        "  const r = runStage({ agent: 'agents/prompt-refiner.aip', stage: 'pre', prompt: 'Fix it' });",
        "  expect(r.prompts).toEqual(['something else']);",
        '});',
      ].join('\n'),
    );
    const r = inProject(dir, bin('vitest'), ['run', 'refiner.test.ts']);
    expect(r.stdout).toMatch(/1 failed \| 1 passed/);
    expect(r.code).toBe(1);
  });

  it("type-checks against the user's strict tsc with skipLibCheck off", () => {
    writeFileSync(
      nodePath.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
        files: ['typed.ts'],
      }),
    );
    writeFileSync(
      nodePath.join(dir, 'typed.ts'),
      [
        "import { runStage, runSuite, type StageResult, type SuiteResult } from 'coder-subagents';",
        "const r: StageResult = runStage({ agent: 'agents/prompt-refiner.aip', stage: 'pre', prompt: 'x' });",
        "const s: SuiteResult = runSuite(['agents']);",
        'export const ok: boolean = r.ok && s.failed === 0;',
      ].join('\n'),
    );
    const good = inProject(dir, bin('tsc'), ['--noEmit', '-p', '.']);
    expect(good.stdout + good.stderr).toBe('');
    expect(good.code).toBe(0);
    // and the types are real: a wrong use is an error
    writeFileSync(nodePath.join(dir, 'typed.ts'), "import { runStage } from 'coder-subagents';\nexport const n: number = runStage({ agent: 'a.aip' }).ok;\n");
    const bad = inProject(dir, bin('tsc'), ['--noEmit', '-p', '.']);
    expect(bad.stdout).toMatch(/typed\.ts\(2,14\): error TS2322: Type 'boolean' is not assignable to type 'number'/);
  });
});
