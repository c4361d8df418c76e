/**
 * An upstream pro@coder user's workspace (fixtures/coder-upstream: the prompt written from upstream's template,
 * sub-agents written as upstream's README shows them) tests its sub-agents with event-form contract files:
 * `npx coder-subagents test` passes as it is, on the engine of the project running this file.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tmpDir } from '../harness/helpers.ts';

const UPSTREAM = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url));

interface JsonCase {
  file: string;
  name: string;
  stage: string;
  status: string;
  warnings: string[];
}

describe("an upstream user's workspace tests its sub-agents in the event form", () => {
  it('every contract case passes: merged params, emitted events, agent_on, the redo cap, the post input fields', async () => {
    const dir = tmpDir();
    cpSync(UPSTREAM, dir, { recursive: true });
    const r = await runCli(['test', 'my-agents', '--json'], dir);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { cases: JsonCase[]; passed: number; failed: number; errors: string[] };
    expect(out.errors).toEqual([]);
    expect(out.cases.map((c) => [nodePath.basename(c.file), c.stage, c.status])).toEqual([
      ['after-run.contract.toml', 'post', 'passed'],
      ['again.contract.toml', 'post', 'passed'],
      ['again.contract.toml', 'post', 'passed'],
      ['ctx-narrow.contract.toml', 'pre', 'passed'],
      ['on-narrowed.contract.toml', 'pre', 'passed'],
      ['post-status.contract.toml', 'post', 'passed'],
      ['start-and-end.contract.toml', 'pre', 'passed'],
      ['start-and-end.contract.toml', 'post', 'passed'],
    ]);
    // the only warning is about the agent itself: upstream's merge drops the sub_agents key it returns, as this pack does
    expect(out.cases.flatMap((c) => c.warnings)).toEqual([
      'coder_params contains sub_agents: it is removed before use (a sub-agent changes the pipeline with sub_agents_next)',
    ]);
    expect(r.code).toBe(0);
  });

  it('a wrong expectation fails naming what the pack did: the redo cap, the events emitted', async () => {
    const dir = tmpDir();
    cpSync(UPSTREAM, dir, { recursive: true });
    const r = await runCli(['test', 'my-agents', '--json', '--filter', 'cap'], dir);
    expect(JSON.parse(r.stdout).passed).toBe(1);
    const edit = (file: string, from: string, to: string) => {
      const p = nodePath.join(dir, 'my-agents', file);
      const text = readFileSync(p, 'utf8');
      expect(text).toContain(from);
      writeFileSync(p, text.replace(from, to));
    };
    edit('again.contract.toml', 'redo_count = 20\n[case.expect]\nredo = false', 'redo_count = 20\n[case.expect]\nredo = true');
    edit('ctx-narrow.contract.toml', 'emit = ["ctx::narrowed"]', 'emit = ["ctx::ready"]');
    const bad = await runCli(['test', 'my-agents', '--json'], dir);
    const failed = (JSON.parse(bad.stdout) as { cases: (JsonCase & { message?: string })[] }).cases.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.message)).toEqual([
      'redo: the agent asked for a redo (coder_redo = true), but the pack starts none: the cap of 20 redos is reached (redo_count = 20)',
      'emit: expected ["ctx::ready"], got ["ctx::narrowed"]',
    ]);
    expect(bad.code).toBe(1);
  });
});
