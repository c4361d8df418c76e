import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgs, runCli, spawnCli } from '../../helpers/cli.ts';
import { FIXTURES, tmpDir, write } from '../../harness/helpers.ts';

/** Output lines, without the per-case times (they vary from run to run). */
const lines = (s: string) => s.trimEnd().split('\n').map((l) => l.replace(/ \d+ ms( \(slow\))?$/, ''));

const WRONG = `agent = "prompt-refiner.aip"
[[case]]
name = "wrong prompts"
prompt = "Fix"
[case.expect]
prompts = ["Fix", "Focus: billing"]

[[case]]
name = "right prompts"
prompt = "Fix"
[case.expect]
prompts = ["Fix", "Focus: app"]
`;

describe('coder-subagents test', () => {
  it('runs every case file under a path: one line per case, the summary, exit 0 (real binary)', () => {
    const r = spawnCli(['test', 'agents'], FIXTURES);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out).toContain('✓ agents/prompt-refiner.contract.toml › adds a focus line and a context glob (pre)');
    expect(out).toContain('✓ agents/task-tuner.contract.toml › cools down multi-file tasks (pre_task)');
    expect(out).toContain('✓ agents/answer-cleaner.contract.toml › removes DEBUG lines (post_task)');
    expect(out).toContain('✓ agents/summary-writer.contract.toml › writes the summary file (post)');
    expect(out).toContain('- agents/prompt-refiner.contract.toml › not ready yet (pre) skipped');
    expect(out).toContain("    warning: unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored");
    expect(out.at(-1)).toBe('13 passed, 0 failed, 1 skipped');
  });

  it('defaults to the current directory and searches below it', async () => {
    const r = await runCli(['test'], FIXTURES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ agents/failing.contract.toml › adds the ticket (pre)');
    expect(lines(r.stdout).at(-1)).toBe('13 passed, 0 failed, 1 skipped');
  });

  it('exits 1 when a case fails, with the diff under the case', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', WRONG);
    const r = await runCli(['test', 'agents/wrong.contract.toml'], dir);
    expect(r.code).toBe(1);
    expect(lines(r.stdout)).toEqual([
      '✗ agents/wrong.contract.toml › wrong prompts (pre)',
      '    prompts[2]: expected "Focus: billing", got "Focus: app"',
      '✓ agents/wrong.contract.toml › right prompts (pre)',
      '',
      'stages covered:',
      '  agents/prompt-refiner.aip: pre ×2',
      '',
      '1 passed, 1 failed',
    ]);
  });

  it('--strict fails cases with warnings', async () => {
    const lax = await runCli(['test', 'agents/param-dropper.contract.toml'], FIXTURES);
    expect(lax.code).toBe(0);
    const strict = await runCli(['test', 'agents/param-dropper.contract.toml', '--strict'], FIXTURES);
    expect(strict.code).toBe(1);
    expect(lines(strict.stdout).join('\n')).toContain('✗ agents/param-dropper.contract.toml › replaces the params (pre)\n    --strict: the 4 warnings below fail this case\n    warning: ');
    expect(lines(strict.stdout).at(-1)).toBe('0 passed, 1 failed');
  });

  it('--json prints the cases, the counts and the errors', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', WRONG);
    const r = await runCli(['test', 'agents/wrong.contract.toml', 'agents/param-dropper.contract.toml', '--json'], dir);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['cases', 'passed', 'failed', 'skipped', 'not_run', 'errors', 'agents_without_contract', 'coverage']);
    expect(out.coverage).toEqual([
      { agent: 'agents/param-dropper.aip', stages: { pre: 1 } },
      { agent: 'agents/prompt-refiner.aip', stages: { pre: 2 } },
    ]);
    expect(out.passed).toBe(2);
    expect(out.failed).toBe(1);
    expect(out.skipped).toBe(0);
    expect(out.errors).toEqual([]);
    expect(out.cases[0]).toEqual({
      file: 'agents/param-dropper.contract.toml',
      name: 'replaces the params',
      stage: 'pre',
      status: 'passed',
      message: null,
      warnings: expect.arrayContaining(["unknown response key 'coder_promt' (did you mean 'coder_prompt'?): it is ignored"]),
      ms: expect.any(Number),
      slow: expect.any(Boolean),
    });
    expect(out.cases[1]).toEqual({
      file: 'agents/wrong.contract.toml',
      name: 'wrong prompts',
      stage: 'pre',
      status: 'failed',
      message: 'prompts[2]: expected "Focus: billing", got "Focus: app"',
      warnings: [],
      ms: expect.any(Number),
      slow: expect.any(Boolean),
    });
  });

  it('--filter runs only matching cases; filtered cases are not counted as skipped', async () => {
    const r = await runCli(['test', 'agents', '--filter', 'DEBUG'], FIXTURES);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      '✓ agents/answer-cleaner.contract.toml › removes DEBUG lines (post_task)',
      '',
      'stages covered:',
      '  agents/answer-cleaner.aip: post_task ×1',
      expect.stringMatching(/^no contract file \(not tested\): agents\/lister\.aip(, |$)/),
      '',
      '1 passed, 0 failed',
    ]);
    const none = await runCli(['test', 'agents', '--filter', 'no such case'], FIXTURES);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: no case matches --filter "no such case"/);
  });

  it('--trace prints the sub-agent run under each case', async () => {
    const r = await runCli(['test', 'agents/ai-refiner.contract.toml', '--filter', "AI's rewrite", '--trace'], FIXTURES);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('    trace:');
    expect(r.stdout).toMatch(/aip\.agent\.run ai-refiner\.aip/);
    expect(r.stdout).toMatch(/AI task #1 model sim-model: "Fix the validation of the login form\."/);
  });

  it('exits 2 for a malformed case file, naming the file, the case and the key; the other files still run', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/bad.contract.toml', 'agent = "prompt-refiner.aip"\n[[case]]\nname = "typo"\npromt = "Fix"\n');
    const r = await runCli(['test', 'agents'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: agents/bad.contract.toml: case #1 \"typo\": unknown key 'promt' (did you mean 'prompt'?) " +
        '(allowed: name, skip, todo, order_check, stage, on, during, redo_count, prompt, prompts, params, config, files, ai, commands, web, mocks, task, response, responses, prev, expect)\n',
    );
    expect(lines(r.stdout).at(-1)).toBe('13 passed, 0 failed, 1 skipped, 1 case file not run (see the error above)');
  });

  it('exits 2 for a missing agent, with the key', async () => {
    const dir = tmpDir();
    write(dir, 'x.contract.toml', 'agent = "gone.aip"\n[[case]]\nname = "a"\n');
    const r = await runCli(['test', '--json'], dir);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).errors[0]).toMatch(/^x\.contract\.toml: agent: 'gone\.aip' not found/);
  });

  it('exits 2 when there is no case file or the path does not exist', async () => {
    const dir = tmpDir();
    const none = await runCli(['test'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('error: no case files (*.contract.toml) found under .\n');
    const missing = await runCli(['test', 'nope'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: nope: no such file or directory\n');
  });

  it('takes an agent for its case file', async () => {
    const r = await runCli(['test', 'agents/task-tuner.aip'], FIXTURES);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe('2 passed, 0 failed');
    const dir = tmpDir();
    write(dir, 'lonely.aip', '# Output\n');
    const none = await runCli(['test', 'lonely.aip'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'error: lonely.aip is an agent, not a case file, and lonely.contract.toml does not exist (npx coder-subagents init writes both)\n',
    );
  });

  it('names a Lua error by the agent path of the case file, not the sandbox', async () => {
    const dir = tmpDir();
    write(dir, 'agents/broken.aip', '# Output\n\n```lua\nif input then\n  return nil\nedn\n```\n');
    write(dir, 'agents/broken.contract.toml', 'agent = "broken.aip"\n[[case]]\nname = "runs"\n');
    const r = await runCli(['test', 'agents', '--trace'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('__coder_subagents_sandbox__');
    expect(r.stdout).toContain("\n    broken.aip:6: 'end' expected (to close 'if' at line 4) near 'edn'\n");
    expect(r.stdout).toContain('agent broken.aip (broken.aip, 1 input)');
    expect(lines(r.stdout).at(-1)).toBe('0 passed, 1 failed');
  });
});

// the test runner conventions (what vitest and jest users expect)
const ran = (s: string) => lines(s).filter((l) => /^[✓✗-] /.test(l));

const FAILING_TWICE = `agent = "prompt-refiner.aip"
[[case]]
name = "first wrong"
prompt = "Fix"
[case.expect]
prompts = ["nope"]
[[case]]
name = "second wrong"
prompt = "Fix"
[case.expect]
prompts = ["nope"]
[[case]]
name = "right"
prompt = "Fix"
[case.expect]
prompts = ["Fix", "Focus: app"]
`;

describe('coder-subagents test: runner conventions', () => {
  it('takes globs as positional arguments (agents or case files)', async () => {
    const r = await runCli(['test', 'agents/*tuner*'], FIXTURES);
    expect(r.code).toBe(0);
    expect(ran(r.stdout)).toEqual([
      '✓ agents/task-tuner.contract.toml › cools down multi-file tasks (pre_task)',
      '✓ agents/task-tuner.contract.toml › a task without working files changes nothing (pre_task)',
    ]);
    const none = await runCli(['test', 'agents/*nothing*'], FIXTURES);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe("error: agents/*nothing*: no case file or agent matches this pattern\n");
  });

  it('-t / --test-name-pattern selects cases by a regex over their names', async () => {
    const r = await runCli(['test', 'agents', '-t', '^(removes|writes) '], FIXTURES);
    expect(r.code).toBe(0);
    expect(ran(r.stdout)).toEqual([
      '✓ agents/answer-cleaner.contract.toml › removes DEBUG lines (post_task)',
      '✓ agents/summary-writer.contract.toml › writes the summary file (post)',
    ]);
    const bad = await runCli(['test', 'agents', '--test-name-pattern', '(unclosed'], FIXTURES);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --test-name-pattern \(unclosed: invalid regex: /);
  });

  it('--bail [N] stops after N failed cases and says how many did not run', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', FAILING_TWICE);
    const one = await runCli(['test', 'agents/wrong.contract.toml', '--bail'], dir);
    expect(one.code).toBe(1);
    expect(ran(one.stdout)).toEqual(['✗ agents/wrong.contract.toml › first wrong (pre)']);
    expect(lines(one.stdout).at(-1)).toBe('0 passed, 1 failed, 2 not run (stopped by --bail after 1 failure)');
    const two = await runCli(['test', 'agents/wrong.contract.toml', '--bail', '2'], dir);
    expect(lines(two.stdout).at(-1)).toBe('0 passed, 2 failed, 1 not run (stopped by --bail after 2 failures)');
  });

  it('--reporter junit --output-file writes JUnit XML for CI and still prints the report', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', FAILING_TWICE);
    const r = await runCli(['test', 'agents/wrong.contract.toml', '--reporter', 'junit', '--output-file', 'reports/r.xml'], dir);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).at(-1)).toBe('junit report written to reports/r.xml');
    const xml = readFileSync(nodePath.join(dir, 'reports/r.xml'), 'utf8');
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="coder-subagents" tests="3" failures="2" errors="0" skipped="0" time="[\d.]+">\n/);
    expect(xml).toMatch(/<testsuite name="agents\/wrong\.contract\.toml" tests="3" failures="2" errors="0" skipped="0" time="[\d.]+">/);
    expect(xml).toContain('<failure message="prompts[1]: expected &quot;nope&quot;, got &quot;Fix&quot;">');
    expect(xml).toMatch(/<testcase classname="agents\/wrong\.contract\.toml" name="right \(pre\)" time="[\d.]+"\/>/);
    // to stdout without --output-file
    const out = await runCli(['test', 'agents/task-tuner.contract.toml', '--reporter', 'junit'], FIXTURES);
    expect(out.stdout).toMatch(/^<\?xml/);
    expect(out.stdout).toContain('tests="2" failures="0"');
  });

  it('--reporter html writes the page to --output-file (and needs one), the cases and their runs in it', async () => {
    const dir = tmpDir(true);
    write(dir, 'agents/wrong.contract.toml', FAILING_TWICE);
    const none = await runCli(['test', 'agents/wrong.contract.toml', '--reporter', 'html'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--reporter html writes a page: give the file with --output-file <file.html>');
    const r = await runCli(['test', 'agents/wrong.contract.toml', '--reporter', 'html', '--output-file', 'reports/r.html'], dir);
    expect(r.code).toBe(1);
    expect(lines(r.stdout).at(-1)).toBe('html report written to reports/r.html');
    const page = readFileSync(nodePath.join(dir, 'reports/r.html'), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!);
    expect(data.suite.cases.map((c: { name: string; status: string; run: boolean }) => [c.name, c.status, c.run])).toEqual([
      ['first wrong', 'failed', true],
      ['second wrong', 'failed', true],
      ['right', 'passed', true],
    ]);
    expect(page).toContain('<script type="application/json" id="run-2">');
    // the page loads the tokenizer's tables for its token estimates
  }, 60_000);

  it('--shard i/n splits the cases: the shards together run each case once', async () => {
    const all = ran((await runCli(['test', 'agents'], FIXTURES)).stdout);
    const parts = [];
    for (const shard of ['1/3', '2/3', '3/3']) parts.push(...ran((await runCli(['test', 'agents', '--shard', shard], FIXTURES)).stdout));
    expect(parts.sort()).toEqual([...all].sort());
    const bad = await runCli(['test', 'agents', '--shard', '4/3'], FIXTURES);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: --shard 4/3: expected INDEX/COUNT with 1 <= INDEX <= COUNT, e.g. 1/3\n');
  });

  it('--aipack-version and --budget reach the simulated runtime', async () => {
    const dir = tmpDir();
    write(dir, 'agents/v.aip', '# Output\n\n```lua\nlocal n = 0\nfor i = 1, 1000000 do n = n + i end\nreturn { agent_result = CTX.AIPACK_VERSION }\n```\n');
    write(dir, 'agents/v.contract.toml', 'agent = "v.aip"\n[[case]]\nname = "version"\n[case.expect]\nagent_result = "0.8.20"\n');
    expect((await runCli(['test', 'agents', '--aipack-version', '0.8.20', '--budget', '100000000'], dir)).code).toBe(0);
    const old = await runCli(['test', 'agents', '--aipack-version', '0.8.16', '--budget', '100000000'], dir);
    expect(old.stdout).toContain('agent_result: expected "0.8.20", got "0.8.16"');
    // the budget is the run tree's: the harness driver and the coder pipeline share it with the agent
    const tight = await runCli(['test', 'agents', '--aipack-version', '0.8.20', '--budget', '1000000'], dir);
    expect(tight.code).toBe(1);
    expect(tight.stdout).toContain('instruction budget exceeded in v.aip Output');
    expect((await runCli(['test', 'agents', '--budget', '0'], dir)).stderr).toBe('error: --budget 0: expected a positive integer\n');
  });

  it('--aipack-version oldest,newest runs the suite once per version, each under its heading; the worst exit wins', async () => {
    const dir = tmpDir();
    write(dir, 'agents/v.aip', '# Output\n\n```lua\nreturn { agent_result = CTX.AIPACK_VERSION }\n```\n');
    write(dir, 'agents/v.contract.toml', 'agent = "v.aip"\n[[case]]\nname = "version"\n[case.expect]\nagent_result = "0.8.33"\n');
    expect((await runCli(['test', 'agents'], dir)).code).toBe(0); // the default is the newest
    const both = await runCli(['test', 'agents', '--aipack-version', 'oldest,newest'], dir);
    expect(both.code).toBe(1);
    const out = lines(both.stdout);
    expect(out[0]).toBe('AIPack 0.8.15');
    expect(out).toContain('    agent_result: expected "0.8.33", got "0.8.15"');
    expect(out).toContain('AIPack 0.8.33');
    expect(out.at(-1)).toBe('1 passed, 0 failed');
    const json = await runCli(['test', 'agents', '--aipack-version', 'oldest,newest', '--reporter', 'json'], dir);
    expect(json.stderr).toMatch(/^error: --reporter json with several AIPack versions: give --output-file/);
    expect((await runCli(['test', 'agents', '--aipack-version', 'oldest,0.8'], dir)).stderr).toMatch(/^error: --aipack-version oldest,0\.8: expected MAJOR\.MINOR\.PATCH/);
  }, 180_000);

  it("a config's output_file outside the project is refused before any case runs; --output-file may go anywhere", async () => {
    const dir = tmpDir(true);
    const outside = tmpDir();
    write(dir, 'package.json', '{}');
    write(dir, 'coder-subagents.config.toml', `paths = ["agents/task-tuner.contract.toml"]\nreporter = "junit"\noutput_file = ${JSON.stringify(nodePath.join(outside, 'authorized_keys'))}\n`);
    const r = await runCli(['test'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: coder-subagents\.config\.toml: output_file: ".*authorized_keys" leads outside the project .* \(give --output-file to write elsewhere\)\n$/);
    expect(readdirSync(outside)).toEqual([]);
    write(dir, 'coder-subagents.config.toml', 'paths = ["agents/task-tuner.contract.toml"]\nreporter = "junit"\n');
    const given = await runCli(['test', '--output-file', nodePath.join(outside, 'r.xml')], dir);
    expect(given.code).toBe(0);
    expect(readFileSync(nodePath.join(outside, 'r.xml'), 'utf8')).toContain('<testsuites');
  });

  it('reads coder-subagents.config.toml at the project root; flags win; unknown keys are refused', async () => {
    const dir = tmpDir(true);
    write(dir, 'package.json', '{}');
    write(dir, 'coder-subagents.config.toml', 'paths = ["agents/task-tuner.contract.toml"]\nreporter = "junit"\noutput_file = "out/junit.xml"\n');
    write(dir, 'agents/sub/.keep', '');
    const r = await runCli(['test'], nodePath.join(dir, 'agents/sub'));
    expect(r.code).toBe(0);
    expect(readFileSync(nodePath.join(dir, 'out/junit.xml'), 'utf8')).toContain('tests="2" failures="0"');
    const flags = await runCli(['test', 'agents/answer-cleaner.contract.toml', '--reporter', 'json'], dir);
    expect(JSON.parse(readFileSync(nodePath.join(dir, 'out/junit.xml'), 'utf8')).passed).toBe(2);
    expect(flags.code).toBe(0);
    write(dir, 'coder-subagents.config.toml', 'path = ["agents"]\n');
    const bad = await runCli(['test'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "error: coder-subagents.config.toml: unknown key 'path' (did you mean 'paths'?) (allowed: paths, engine, aipack_version, budget, strict, order_check, reporter, output_file, slow_ms)\n",
    );
    write(dir, 'coder-subagents.config.toml', 'reporter = "tap"\n');
    expect((await runCli(['test'], dir)).stderr).toBe('error: coder-subagents.config.toml: reporter: expected one of default, json, junit, html\n');
  });

  it('lists the agents without a contract file and the stages the cases cover', async () => {
    const r = await runCli(['test', 'agents'], FIXTURES);
    const out = lines(r.stdout);
    expect(out).toContain('stages covered:');
    expect(out).toContain('  agents/task-tuner.aip: pre_task ×2');
    expect(out).toContain('  agents/prompt-refiner.aip: pre ×2');
    expect(out.find((l) => l.startsWith('no contract file'))).toMatch(/^no contract file \(not tested\): agents\/lister\.aip(, |$)/);
  });
});


/** Resolves when `text` appears in the child's stdout (rejects with what it printed if it exits first). */
function waitFor(child: ReturnType<typeof spawn>, out: { text: string }, text: string, from: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (out.text.indexOf(text, from) >= 0) {
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => reject(new Error(`exited before printing ${JSON.stringify(text)}:\n${out.text}`)));
    check();
  });
}

describe('coder-subagents test --watch', () => {
  it("re-runs after editors' safe-writes (sed -i, write-and-rename) of the agent and of the case file", async () => {
    const dir = tmpDir(true);
    const child = spawn(process.execPath, cliArgs(['test', 'agents/task-tuner.contract.toml', '--watch']), {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const out = { text: '' };
    child.stdout.on('data', (d) => (out.text += String(d)));
    try {
      await waitFor(child, out, 'watching ', 0);
      // sed -i writes a temp file and renames it over the agent
      let mark = out.text.length;
      execFileSync('sed', ['-i', 's/params.temperature = 0 end/params.temperature = 0 end -- saved once/', nodePath.join(dir, 'agents/task-tuner.aip')]);
      await waitFor(child, out, '2 passed', mark);
      expect(out.text.slice(mark)).toContain('re-running agents/task-tuner.contract.toml');
      // twice, since the first rename replaced the file the watcher knew
      mark = out.text.length;
      execFileSync('sed', ['-i', 's/saved once/saved twice/', nodePath.join(dir, 'agents/task-tuner.aip')]);
      await waitFor(child, out, 're-running agents/task-tuner.contract.toml', mark);
      // a JetBrains-style save of the case file: write beside, rename over
      mark = out.text.length;
      const cases = nodePath.join(dir, 'agents/task-tuner.contract.toml');
      writeFileSync(`${cases}___jb_tmp___`, readFileSync(cases, 'utf8').replace('cools down multi-file tasks', 'cools down big tasks'));
      renameSync(`${cases}___jb_tmp___`, cases);
      await waitFor(child, out, 'cools down big tasks', mark);
    } finally {
      child.kill();
    }
  }, 60_000);
});
