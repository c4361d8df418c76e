/** The README sections for sub-agent authors ("Use it in your own project", "The coder's answer format"): every example runs. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/harness/config-parse.ts';
import { runContractFile } from '../../src/harness/run-case.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_PACK, REPO_ROOT } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { runCli } from '../helpers/cli.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const README = readFileSync(nodePath.join(REPO_ROOT, 'README.md'), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `section ## ${title}`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** The fenced blocks of a text, 3 or 4 backticks, with their language. */
function fenced(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/^(`{3,4})(\w*)\n([\s\S]*?)^\1$/gm)].map((m) => ({ lang: m[2], body: m[3] }));
}

describe('README: Use it in your own project', () => {
  const blocks = fenced(section('Use it in your own project'));

  it('its config file is one the runner reads, with every key', () => {
    const toml = blocks.find((b) => b.lang === 'toml')!.body;
    const dir = tmpDir();
    const file = write(dir, 'coder-subagents.config.toml', toml);
    const c = loadConfig(file);
    expect(Object.keys(c).sort()).toEqual(['aipack_version', 'budget', 'engine', 'file', 'output_file', 'paths', 'project', 'reporter', 'slow_ms', 'strict']);
  });

  it('its CI steps, run in a project made by its install steps, write the JUnit report', async () => {
    const dir = tmpDir();
    write(dir, 'package.json', '{}');
    const sh = blocks.find((b) => b.lang === 'sh')!.body.split('\n').filter((l) => l.startsWith('npx coder-subagents '));
    expect(sh.length).toBe(2);
    const steps = (parseYaml(blocks.find((b) => b.lang === 'yaml')!.body) as { jobs: Record<string, { steps: { run?: string }[] }> }).jobs['sub-agents'].steps;
    const runs = steps.map((s) => s.run).filter((r): r is string => !!r?.startsWith('npx coder-subagents '));
    expect(runs.length).toBe(2);
    for (const line of [...sh, ...runs]) {
      const args = line.replace(/#.*$/, '').trim().replace(/^npx coder-subagents /, '').split(/\s+/);
      const r = await runCli(args, dir);
      expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    const xml = readFileSync(nodePath.join(dir, 'reports/contract-tests.xml'), 'utf8');
    expect(xml).toContain('<testsuite name="agents/prompt-refiner.contract.toml" tests="3" failures="0"');
  });
});

describe("README: The coder's answer format", () => {
  const blocks = fenced(section("The coder's answer format"));
  const answers = blocks.filter((b) => b.lang === 'text' && /^(<AIP_FILE_CHANGE|<FILE_CHANGES>|Formatting)/.test(b.body));

  /** Runs the coder in `mode` on a workspace with src/price.ts, with `answer` (inner fences made four backticks). */
  function coderWith(mode: string, answer: string) {
    const ws = tmpDir();
    mkdirSync(nodePath.join(ws, '.aipack'), { recursive: true });
    write(ws, 'src/price.ts', 'export const price = (cents: number) => cents / 100;\n');
    write(ws, 'src/old-price.ts', 'export {};\n');
    write(
      ws,
      '.aipack/.prompt/pro@coder/coder-prompt.md',
      `\`\`\`toml\n#!meta\ncontext_globs = ["src/**/*.ts"]\nwrite_mode = true\nfile_content_mode = "${mode}"\n\`\`\`\nKeep two decimals.\n\n====\n`,
    );
    const content = answer.replace(/^```(\w*)$/gm, '````$1');
    const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], ai: ScriptedAi.fromList([{ content }]) });
    sim.run({ name: 'pro@coder', baseDir: ws });
    return sim;
  }

  it('shows one answer per file_content_mode, and the coder applies each', () => {
    expect(answers.length).toBe(3);
    const modes = ['whole', 'search_replace_auto', 'udiffx'];
    answers.forEach((a, i) => {
      const sim = coderWith(modes[i], a.body);
      const ws = sim.vfs.workspaceDir;
      // udiffx also deletes src/old-price.ts; the other modes leave it
      expect(sim.vfs.isFile(nodePath.join(ws, 'src/old-price.ts')), modes[i]).toBe(modes[i] !== 'udiffx');
      expect(sim.vfs.readFile(nodePath.join(ws, 'src/price.ts')), modes[i]).toBe('export const price = (cents: number) => (cents / 100).toFixed(2);\n');
    });
  });

  it('its post_task sub-agent passes its contract file', () => {
    const aip = blocks.find((b) => b.lang === 'text' && b.body.startsWith('# Output'))!.body.replace(/^```(\w*)$/gm, '```$1');
    const toml = blocks.find((b) => b.lang === 'toml')!.body;
    const dir = tmpDir();
    writeFileSync(write(dir, 'agents/env-guard.aip', aip), aip);
    const r = runContractFile(write(dir, 'agents/env-guard.contract.toml', toml));
    expect(r.cases.map((c) => [c.name, c.status, c.message ?? ''])).toEqual([
      ['drops a change to .env', 'passed', ''],
      ['keeps other changes', 'passed', ''],
    ]);
    // and it works on a udiffx answer too
    const udiffx = readFileSync(nodePath.join(dir, 'agents/env-guard.contract.toml'), 'utf8');
    writeFileSync(
      nodePath.join(dir, 'agents/env-guard.contract.toml'),
      udiffx + '\n[[case]]\nname = "udiffx"\nstage = "post_task"\nresponse = "<FILE_CHANGES>\\n<FILE_DELETE file_path=\\".env\\" />\\n</FILE_CHANGES>"\n[case.expect]\nresponse = "<FILE_CHANGES>\\n</FILE_CHANGES>"\n',
    );
    expect(runContractFile(nodePath.join(dir, 'agents/env-guard.contract.toml')).cases.map((c) => c.status)).toEqual(['passed', 'passed', 'passed']);
  });
});
