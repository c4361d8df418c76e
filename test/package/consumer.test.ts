/**
 * The packed package, installed in a fresh project, used the four ways a user does: the CLI (`init`, `test`,
 * `check`), a vitest file, a plain Node ESM script, and the user's own strict `tsc` over its types.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
}, 60_000);

/** npx as a user types it; npm's own config warnings (of this machine's npmrc) are not ours. */
const cli = (...args: string[]) => {
  const r = inProject(dir, 'npx', ['--no', '--', 'coder-subagents', ...args]);
  return { ...r, stderr: r.stderr.split('\n').filter((l) => !l.startsWith('npm warn')).join('\n') };
};
const bin = (tool: string) => nodePath.join(dir, 'node_modules', '.bin', tool);

describe('the packed package in a fresh project', () => {
  it('ships the compiled package only: no sources, tests, bench or CI files', async () => {
    const listing = inProject(scratch, 'tar', ['tzf', tarball]).stdout.split('\n').filter(Boolean);
    expect(listing).toContain('package/dist/index.js');
    expect(listing).toContain('package/dist/index.d.ts');
    // the CLI and its workers' jobs, bundled (scripts/bundle.mjs): what `npx coder-subagents` runs below
    for (const entry of ['cli', 'worker-jobs', 'simulate-job']) expect(listing).toContain(`package/dist/bundle/${entry}.js`);
    // the Lua and agents the modules read beside themselves (the prelude, the contract's interpreter, the driver...)
    const assets = readdirSync(nodePath.resolve(import.meta.dirname, '../../src'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(lua|aip)$/.test(f));
    expect(assets).toContain(nodePath.join('aip', 'prelude.lua'));
    for (const f of assets) expect(listing).toContain(`package/dist/${f.split(nodePath.sep).join('/')}`);
    expect(listing).toContain('package/pack/SUB_AGENTS.md');
    // the HTML report's page, style and script, read at run time
    for (const a of ['report.html', 'report.css', 'report.js']) expect(listing).toContain(`package/dist/report/assets/${a}`);
    // fengari's bytecode of the pack's modules, for the very files shipped (a module whose source has none is parsed)
    const bundle = JSON.parse(readFileSync(nodePath.join(dir, 'node_modules/coder-subagents/dist/engine/fengari-chunks.json'), 'utf8'));
    const packLua = nodePath.join(dir, 'node_modules/coder-subagents/pack/lua');
    const modules = readdirSync(packLua).filter((f) => f.endsWith('.lua'));
    expect(modules.length).toBeGreaterThan(5);
    for (const f of modules) expect(Object.keys(bundle.chunks), f).toContain(createHash('sha1').update(readFileSync(nodePath.join(packLua, f))).digest('hex'));
    // and of the contract driver's stages, as the simulator runs them
    const dist = nodePath.join(dir, 'node_modules/coder-subagents/dist');
    const { DRIVER_AIP, DRIVER_FILE } = await import(nodePath.join(dist, 'harness/driver.js'));
    const { parseAgentDoc, stageChunks } = await import(nodePath.join(dist, 'runtime/agent-doc.js'));
    const driverChunks: string[] = stageChunks(parseAgentDoc(DRIVER_AIP, DRIVER_FILE));
    expect(driverChunks.length).toBeGreaterThan(0);
    for (const c of driverChunks) expect(Object.keys(bundle.chunks)).toContain(createHash('sha1').update(c).digest('hex'));
    // zod bundled as far as the schemas use it: its namespace object, imported whole, brings every locale it has
    const bundled = readdirSync(nodePath.join(dist, 'bundle')).map((f) => readFileSync(nodePath.join(dist, 'bundle', f), 'utf8'));
    expect(bundled.join('\n').match(/node_modules\/zod\/v4\/locales\/[\w-]+\.js/g)).toEqual(['node_modules/zod/v4/locales/en.js']);
    const unwanted = listing.filter((f) => /^package\/(src|test|bench|\.ci|lua|scripts|types)\//.test(f) || /\.ts$/.test(f.replace(/\.d\.ts$/, '')));
    // the demo and the built-ins' upstream prompt hold .ts files of their pretend projects; they are data, not code
    expect(unwanted.filter((f) => !f.startsWith('package/fixtures/demo/') && !f.startsWith('package/fixtures/builtins/upstream-prompt/'))).toEqual([]);
    const installed = JSON.parse(readFileSync(nodePath.join(dir, 'node_modules/coder-subagents/package.json'), 'utf8'));
    expect(Object.keys(installed.dependencies)).not.toContain('tsx');
    // nothing runs at install: the tarball ships dist/ built
    expect(Object.keys(installed.scripts ?? {})).not.toContain('prepare');
    expect(existsSync(nodePath.join(dir, 'node_modules/tsx'))).toBe(false);
  });

  it('ships every file the README links or runs: docs, fixtures, pack/SUB_AGENTS.md', () => {
    const root = nodePath.join(dir, 'node_modules/coder-subagents');
    const readme = readFileSync(nodePath.join(root, 'README.md'), 'utf8');
    // markdown links to files of the package, and the docs/ and fixtures/ paths its text and commands name
    // a link written as code (`![the screen](mockup.png)`) is an example of the user's, not a link
    const links = [...readme.replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    const named = [...readme.matchAll(/(?<![\w./-])((?:docs|fixtures)\/[\w.@/-]*[\w@])/g)].map((m) => m[1]!);
    const wanted = [...new Set([...links, ...named])];
    expect(wanted).toEqual(expect.arrayContaining(['docs/builtins.md', 'docs/speed.md', 'fixtures/builtins/upstream-prompt', 'fixtures/runtime/agents/holes.aip', 'pack/SUB_AGENTS.md']));
    expect(wanted.filter((p) => !existsSync(nodePath.join(root, p)))).toEqual([]);
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
    // the HTML report from the installed package: its assets inline, its data in it
    const html = cli('test', '--reporter', 'html', '--output-file', 'report/suite.html');
    expect(html.code, html.stdout + html.stderr).toBe(0);
    const page = readFileSync(nodePath.join(dir, 'report/suite.html'), 'utf8');
    expect(page).toMatch(/<style>[^<]*--bg:/);
    expect(page).toContain("document.getElementById('report-data')");
    expect(page).toContain('adds a focus line');
    // Lua 5.4 as AIPack runs it, from the files the package ships (its bridge reads a probe beside itself at load)
    const lua54 = cli('test', 'agents', '--engine', 'lua54');
    expect(lua54.stdout, lua54.stderr).toMatch(/\n3 passed, 0 failed/);
    const named = cli('test', '-t', 'focus line');
    expect(named.stdout).toMatch(/^✓ agents\/prompt-refiner\.contract\.toml › adds a focus line and a context glob \(pre\) \d+ ms( \(slow\))?$/m);
    expect(named.stdout).toMatch(/\n1 passed, 0 failed/);
    const check = cli('check', 'agents');
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const version = cli('--version');
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(nodePath.join(dir, 'node_modules/coder-subagents/package.json'), 'utf8')).version);
  }, 120_000);

  it('from the package alone: install --workspace, pack, init, test, check and run --write with three kinds of sub-agent', () => {
    const put = (rel: string, text: string) => {
      mkdirSync(nodePath.dirname(nodePath.join(dir, rel)), { recursive: true });
      writeFileSync(nodePath.join(dir, rel), text);
    };
    put('ws/.aipack/.keep', '');
    put('ws/src/app.ts', 'export const apiKey = "sk-live-123";\nexport const add = (a: number, b: number) => a + b;\n');
    const install = cli('install', '--workspace', 'ws');
    expect(install.stderr).toBe('');
    expect(install.stdout).toMatch(/^installed pro@coder \S+ into .*ws\/\.aipack\/pack\/custom\/pro\/coder\n/);
    expect(existsSync(nodePath.join(dir, 'ws/.aipack/pack/custom/pro/coder/main.aip'))).toBe(true);
    const pack = cli('pack', '--out', 'out');
    expect(pack.code, pack.stderr).toBe(0);
    expect(pack.stdout).toMatch(/^wrote .*out\/pro@coder-v\S+\.aipack \(\d+ bytes, \d+ files\)\n/);
    const build = cli('build');
    expect(build.code).toBe(1);
    expect(build.stderr).toMatch(/^error: build needs the pack sources \(lua\/main\.aip\), which only a clone of the repository holds;.*\n$/);

    // a pre secret scrubber and a post_task TODO guard, written by hand; a pre_task agent that asks its own model, from init
    put('ws/agents/secret-scrubber.aip', '# Output\n\n```lua\nlocal prompts, changed = {}, false\nfor i, p in ipairs(input.coder_prompts) do\n  local s, n = p:gsub("sk%-[%w%-]+", "[secret]")\n  prompts[i] = s\n  changed = changed or n > 0\nend\nif not changed then return nil end\nreturn { coder_prompts = prompts }\n```\n');
    put('ws/agents/secret-scrubber.contract.toml', 'agent = "secret-scrubber.aip"\n\n[[case]]\nname = "masks a key"\nstage = "pre"\nprompt = "Use sk-live-123"\n[case.expect]\nprompts = ["Use [secret]"]\n');
    put('ws/agents/todo-guard.aip', '# Output\n\n```lua\nif input.coder_response.content:find("TODO") then\n  return { success = false, error_msg = "the answer adds a TODO" }\nend\nreturn nil\n```\n');
    put('ws/agents/todo-guard.contract.toml', 'agent = "todo-guard.aip"\n\n[[case]]\nname = "refuses a TODO"\nstage = "post_task"\nresponse = "x // TODO"\n[case.expect]\nerror = "^Sub-agent \\\\[todo-guard\\\\.aip\\\\] failed: the answer adds a TODO$"\n');
    const init = cli('init', 'advisor', '--dir', 'ws/agents', '--stage', 'pre_task', '--with-model');
    expect(init.code, init.stderr).toBe(0);
    const test = cli('test', 'ws/agents', '--strict');
    expect(test.stdout).toMatch(/\n5 passed, 0 failed/);
    expect(test.code).toBe(0);

    const prompt = 'ws/.aipack/.prompt/pro@coder/coder-prompt.md';
    const meta = [
      'working_globs = ["src/**/*.ts"]',
      'write_mode = true',
      'sub_agents = [',
      '  "agents/secret-scrubber.aip",',
      '  { name = "agents/advisor.aip", stages = ["pre_task"], options = { model = "cheap" } },',
      '  { name = "agents/todo-guard.aip", stages = ["post_task"] },',
      ']',
    ];
    put(prompt, '```toml\n#!meta\n' + meta.join('\n') + '\n```\n\nRename add to sum. The key sk-live-123 must not leak.\n\n====\n');
    const check = cli('check', 'ws/agents', prompt);
    expect(check.stdout).toMatch(/^check passed/m);
    expect(check.code).toBe(0);

    const patch = (to: string) =>
      `<FILE_CHANGES>\n<FILE_PATCH file_path="src/app.ts">\n\`\`\`\`ts\n@@\n-export const add = (a: number, b: number) => a + b;\n+${to}\n\`\`\`\`\n</FILE_PATCH>\n</FILE_CHANGES>\n`;
    const ai = (to: string) =>
      `[[response]]\nagent = "agents/advisor.aip"\ncontent = "Keep the exports stable."\n\n[[response]]\nagent = "pro@coder"\nmatch = 'WORKING_FILE file_path="src/app\\.ts"'\ncontent = """\nRenamed.\n\n${patch(to)}"""\n`;
    // the guard refuses the answer: the source is not written (what earlier stages saved is, as in AIPack), and the
    // run says why
    put('ws/ai.toml', ai('export const sum = (a: number, b: number) => a + b; // TODO'));
    const refused = inProject(nodePath.join(dir, 'ws'), bin('coder-subagents'), ['run', '--ai', 'ai.toml', '--write']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('files written (the run failed: as in AIPack, what its stages saved before the failure stays written):');
    expect(refused.stdout).not.toMatch(/(created|changed) src\/app\.ts/);
    expect(refused.stderr).toBe('error: Sub-agent [agents/todo-guard.aip] failed: the answer adds a TODO\n');
    expect(readFileSync(nodePath.join(dir, 'ws/src/app.ts'), 'utf8')).toContain('export const add');
    // a clean answer is written; the model never saw the key
    put('ws/ai.toml', ai('export const sum = (a: number, b: number) => a + b;'));
    const run = inProject(nodePath.join(dir, 'ws'), bin('coder-subagents'), ['run', '--ai', 'ai.toml', '--write', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.sub_agents.map((c: { stage: string; agent: string }) => `${c.stage} ${c.agent}`)).toEqual([
      'pre agents/secret-scrubber.aip',
      'pre_task agents/advisor.aip',
      'post_task agents/todo-guard.aip',
    ]);
    expect(report.warnings).toEqual([]);
    expect(report.after_all.tasks[0].files_failed).toEqual([]);
    // the instruction reached the model scrubbed (the working file's own text is the user's business)
    expect(report.ai_calls[0].prompt).toContain('The key [secret] must not leak.');
    expect(report.ai_calls[0].prompt).not.toContain('The key sk-live-123');
    expect(report.ai_calls[0].prompt).toContain('Be careful: Keep the exports stable.');
    expect(readFileSync(nodePath.join(dir, 'ws/src/app.ts'), 'utf8')).toContain('export const sum = (a: number, b: number) => a + b;');
  }, 240_000);

  it('from the package alone: a recorded run becomes cases that pass, and its replay agrees', () => {
    const ws = nodePath.join(dir, 'recorded');
    const put = (rel: string, text: string) => {
      mkdirSync(nodePath.dirname(nodePath.join(ws, rel)), { recursive: true });
      writeFileSync(nodePath.join(ws, rel), text);
    };
    put('.aipack/.keep', '');
    put('src/app.ts', 'export const add = (a: number, b: number) => a + b;\n');
    put('agents/focus.aip', '# Output\n\n```lua\nlocal p = input.coder_params\np.context_globs = { "src/**/*.ts" }\nreturn { coder_params = p, coder_prompts = { input.coder_prompt .. "\\n\\nFocus: keep it small." } }\n```\n');
    put('agents/todo-guard.aip', '# Output\n\n```lua\nif input.coder_response.content:find("TODO") then\n  return { success = false, error_msg = "a TODO" }\nend\nreturn nil\n```\n');
    const meta = ['record = true', 'working_globs = ["src/**/*.ts"]', 'write_mode = false', 'sub_agents = [', '  "agents/focus.aip",', '  { name = "agents/todo-guard.aip", stages = ["post_task"] },', ']'];
    put('.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\n' + meta.join('\n') + '\n```\n\nExplain add.\n\n====\n');
    put('ai.toml', '[[response]]\nagent = "pro@coder"\ncontent = "It adds two numbers."\nreusable = true\n');
    const inWs = (...args: string[]) => inProject(ws, bin('coder-subagents'), args);
    const run = inWs('run', '--ai', 'ai.toml', '--write');
    expect(run.code, run.stderr).toBe(0);
    const imported = inWs('record', 'import', 'latest');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/agents\/focus\.record-\S+\.contract\.toml/);
    const test = inWs('test', 'agents');
    expect(test.stdout).toMatch(/\n2 passed, 0 failed/);
    expect(test.code).toBe(0);
    const replay = inWs('replay', 'latest', '--ai', 'ai.toml');
    expect(replay.stdout).toContain('agree: every step of the replay matches the record');
    expect(replay.code).toBe(0);
  }, 120_000);

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

  it("imports as its bundled entry, with the names and exports of the compiled modules", () => {
    // the bundle (scripts/bundle.mjs) loads a few files instead of ~430 modules; what it exports must be the same
    writeFileSync(
      nodePath.join(dir, 'names.mjs'),
      [
        "import { createRequire } from 'node:module';",
        "import * as lib from 'coder-subagents';",
        "const entry = createRequire(import.meta.url).resolve('coder-subagents');",
        "const modules = await import(new URL('../index.js', 'file://' + entry).href);",
        "const renamed = Object.keys(lib).filter((k) => typeof lib[k] === 'function' && lib[k].name !== modules[k].name);",
        "console.log(JSON.stringify({ entry: entry.split('coder-subagents/')[1], same: Object.keys(lib).join() === Object.keys(modules).join(), renamed }));",
      ].join('\n'),
    );
    const r = inProject(dir, 'node', ['names.mjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ entry: 'dist/bundle/index.js', same: true, renamed: [] });
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
  }, 120_000);
});
