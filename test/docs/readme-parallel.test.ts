/** The README's "Parallel groups" section, followed as a new user would: its files written, run, and tested. */
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/runtime/packs.ts';
import { runCli } from '../helpers/cli.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const README = readFileSync(nodePath.join(REPO_ROOT, 'README.md'), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `section ## ${title}`).toBeGreaterThan(-1);
  return README.slice(start, README.indexOf('\n## ', start + 1));
}

/** The fenced blocks of a text (3 or 4 backticks, a 4-backtick block may hold 3-backtick ones). */
function fenced(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/^(`{3,4})(\w*)\n([\s\S]*?)^\1$/gm)].map((m) => ({ lang: m[2]!, body: m[3]! }));
}

describe('README: Parallel groups', () => {
  const blocks = fenced(section('Parallel groups'));
  const [meta, caseFile] = blocks.filter((b) => b.lang === 'toml').map((b) => b.body);
  const reviewer = blocks.find((b) => b.lang === 'md')!.body;
  const command = blocks.find((b) => b.lang === 'sh')!.body.trim();

  function project(): string {
    const dir = tmpDir();
    write(dir, 'package.json', '{}');
    write(dir, '.aipack/config.toml', '');
    write(dir, 'src/login.ts', 'export const login = (u: string, p: string) => u.length > 0 && p.length > 0;\n');
    write(dir, 'my-agents/review.aip', reviewer);
    write(dir, 'my-agents/reviewers.contract.toml', caseFile!);
    write(dir, '.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n' + meta + '```\n\nCheck the login function.\n');
    // the scripted model for `run`: the coder's answer and one per reviewer
    write(
      dir,
      'ai.toml',
      [
        ['pro@coder', '', 'Looks done.'],
        ['my-agents/review.aip', 'for security problems', 'No secrets are logged.'],
        ['my-agents/review.aip', 'for tests problems', 'Add a case for an empty password.'],
        ['my-agents/review.aip', 'for style problems', 'Fine.'],
      ]
        .map(([agent, match, content]) => `[[response]]\nagent = "${agent}"\n${match ? `match = "${match}"\n` : ''}content = "${content}"\n`)
        .join('\n'),
    );
    return dir;
  }

  it('its contract file passes, order check included, with the command it shows', async () => {
    const dir = project();
    expect(command).toBe('npx coder-subagents test my-agents --order-check');
    const r = await runCli(command.replace(/^npx coder-subagents /, '').split(' '), dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ my-agents\/reviewers\.contract\.toml › each reviewer reviews its focus \(post\)/);
    expect(r.stdout).toMatch(/\n1 passed, 0 failed/);
  });

  it('its prompt runs: the three reviewers as one step at post, each with its model call', async () => {
    const dir = project();
    const r = await runCli(['run', '--ai', 'ai.toml', '--aipack-version', '0.8.17'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('stage post');
    expect(r.stdout).toMatch(/parallel group \[1\]: 3 members, concurrency 3: 3 succeeded/);
    expect(r.stdout.match(/^ {4}\[\d\] my-agents\/review\.aip .*model calls: 1 \(sim-model\)/gm)).toHaveLength(3);
  });
});
