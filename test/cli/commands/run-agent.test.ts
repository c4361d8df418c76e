import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cliArgs, runCli, spawnCli } from '../../helpers/cli.ts';
import { tmpDir, write } from '../../harness/helpers.ts';

const WS = fileURLToPath(new URL('../../../fixtures/runtime', import.meta.url));

describe('coder-subagents run-agent', () => {
  it('prints one JSON object with nil as null, the skip reason and the files, and exits 0 (real binary)', () => {
    const r = spawnCli(['run-agent', 'agents/holes.aip', '--json'], WS);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      outputs: ['a', null, 'c'],
      after_all: null,
      redo_requested: false,
      skipped: null,
      files: { created: [], changed: [], deleted: [] },
    });
  });

  it('--report writes the run as an HTML page and says where', async () => {
    const dir = tmpDir(true);
    const r = await runCli(['run-agent', 'agents/echo', '--input', '"hi <b>"', '--report', nodePath.join(dir, 'r', 'echo.html')], WS);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`HTML report written to ${nodePath.join(dir, 'r', 'echo.html')}`);
    const page = readFileSync(nodePath.join(dir, 'r', 'echo.html'), 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!);
    expect(data.run).toMatchObject({ title: expect.stringMatching(/^agents\/echo on /), status: 'completed', agent: 'agents/echo' });
    expect(data.run.parts[0].sections.map((s: { stage: string }) => s.stage)).toContain('Output');
  });

  it('--report with --json says where the page went on stderr: stdout holds the JSON alone', async () => {
    const dir = tmpDir(true);
    const json = await runCli(['run-agent', 'agents/echo', '--json', '--report', nodePath.join(dir, 'j.html')], WS);
    expect(JSON.parse(json.stdout).outputs).toBeDefined();
    expect(json.stderr).toContain(`HTML report written to ${nodePath.join(dir, 'j.html')}`);
  });

  it('passes --input values (JSON) and reports a Before All skip as exit 0', async () => {
    const echo = JSON.parse((await runCli(['run-agent', 'agents/echo', '--input', '{"k":[1,2]}', '--inputs', '["x"]', '--json'], WS)).stdout);
    expect(echo.outputs).toEqual([{ k: [1, 2] }, 'x']);
    const skip = await runCli(['run-agent', 'agents/skip-all.aip', '--json'], WS);
    expect(skip.code).toBe(0);
    expect(JSON.parse(skip.stdout).skipped).toBe('nothing to do');
  });

  it('exits 1 on a failed run with the message on stderr and as `error`', async () => {
    const r = await runCli(['run-agent', 'agents/fails.aip', '--json'], WS);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatch(/fails\.aip:5: attempt to index a nil value/);
    expect(r.stderr).toMatch(/run failed \(agents\/fails\.aip, Data\)/);
  });

  it('reports created files without writing them, and uses --ai answers', async () => {
    const r = await runCli(['run-agent', 'agents/writes.aip', '--json'], WS);
    expect(JSON.parse(r.stdout).files.created).toEqual(['out/new.txt']);
    const life = await runCli(['run-agent', 'agents/lifecycle.aip', '--ai', 'ai.toml', '--json'], WS);
    expect(life.code).toBe(1); // ai.toml answers task 1 only
    expect(JSON.parse(life.stdout).error).toContain('no scripted AI response for agents/lifecycle.aip');
  });

  it('exits 2 on bad usage', async () => {
    expect((await runCli(['run-agent', 'agents/echo', '--input', 'not json'], WS)).code).toBe(2);
    expect((await runCli(['run-agent', 'agents/echo', '--aipack-version', 'latest'], WS)).code).toBe(2);
    expect((await runCli(['run-agent', 'agents/echo', '--ai', 'missing.toml'], WS)).code).toBe(2);
    expect((await runCli(['run-agent'], WS)).code).toBe(2);
  });

  it('reports an agent file that does not exist on stderr only, with exit 2 (a missing file is bad usage)', async () => {
    const r = await runCli(['run-agent', 'agents/nope.aip'], WS);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('error: agents/nope.aip: no such agent file (looked for agents/nope.aip)\n');
    expect((await runCli(['run-agent', 'agents/nope'], WS)).stderr).toBe('error: agents/nope: no such agent file (looked for agents/nope.aip, agents/nope/main.aip)\n');
  });

  it('hints at --ai when a model call found no scripted answer and no --ai file was given', async () => {
    const r = await runCli(['run-agent', 'agents/lifecycle.aip'], WS);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('\nhint: no --ai file was given');
  });

  it('--write never writes the --aipack-base dir: the saves there are listed as kept in memory', async () => {
    const ws = tmpDir();
    const base = tmpDir();
    write(base, 'pack/installed/acme/tool/main.aip', '# After All\n\n```lua\nreturn 1\n```\n');
    write(ws, 'a.aip', '# After All\n\n```lua\naip.file.save("acme@tool$base/state.json", "{}")\naip.file.save("out.txt", "x")\nreturn aip.file.load("acme@tool$base/state.json").content\n```\n');
    const r = await runCli(['run-agent', 'a.aip', '--workspace', ws, '--aipack-base', base, '--write'], ws);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('after_all: "{}"\n');
    expect(r.stdout).toContain(`files:\n  created out.txt\naipack base (saved in memory only, never written):\n  ${base}/support/pack/acme/tool/state.json\n`);
    expect(existsSync(nodePath.join(ws, 'out.txt'))).toBe(true);
    expect(existsSync(nodePath.join(base, 'support'))).toBe(false);
  });
});

describe('coder-subagents output into a closed pipe', () => {
  it('ends quietly when the reader stops early (`| head`), without an EPIPE stack', () => {
    // the shell's head closes the pipe after one line; the CLI still has lines to write
    const r = spawnSync('sh', ['-c', `"${process.execPath}" ${cliArgs(['run-agent', 'agents/holes.aip', '--trace']).map((a) => `'${a}'`).join(' ')} | head -c 1`], {
      cwd: WS,
      encoding: 'utf8',
    });
    expect(r.stdout.length).toBe(1);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
  });
});

describe('run-agent --json bounds the result at its written size', () => {
  it('a result holding one 1 MiB string 2,000 times is a clear error, not a heap of its expansion', async () => {
    const dir = tmpDir();
    write(dir, '.aipack/.keep', '');
    write(dir, 'a.aip', '# After All\n\n```lua\nlocal s = string.rep("x", 1024 * 1024)\nlocal t = {}\nfor i = 1, 2000 do t[i] = s end\nreturn t\n```\n');
    const r = await runCli(['run-agent', 'a.aip', '--json', '--workspace', dir], dir);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { outputs: unknown; after_all: unknown; error: string };
    expect(out.after_all).toBeNull();
    expect(out.error).toBe("the run's result would take more than 64 MiB written out (a value it holds several times is written each time); it is not rendered");
    expect(r.stdout.length).toBeLessThan(10_000);
  });
});
