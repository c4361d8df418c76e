/**
 * End-to-end: the built coder pack (pack/main.aip) in the simulator on fixtures/coder/pipeline: the pack under
 * test is the one `lua/` builds, write_mode off/on with both file_content_mode values (as upstream
 * aipack-ai/packs-pro pro/coder/main.aip does), and the meta block read the same from TOML, YAML and JSON (pack/SUB_AGENTS.md section 1).
 * The stage contract is in coder-stages.test.ts, its failures in coder-failures.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, renderPack } from '../../src/pack/build.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { belowSeparator, callsIn, completed, DEFAULT_PROMPT, runCoder, type CoderRun } from '../helpers/coder.ts';

const template = (name: string) => readFileSync(nodePath.join(REPO_PACK.dir, 'templates', name), 'utf8').trim();

describe('the pack under test', () => {
  it('pack/ is what `coder-subagents build` makes of lua/ (else run `npx coder-subagents build`)', () => {
    const stale: string[] = [];
    for (const [rel, content] of renderPack(PROJECT_ROOT)) {
      const abs = nodePath.join(REPO_PACK.dir, rel);
      if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) stale.push(rel);
    }
    expect(stale).toEqual([]);
  });
});

describe('write_mode off (default prompt file, no input)', () => {
  it('sends knowledge, context and the previous answer; writes the answer under ==== and touches no source file', () => {
    const run = runCoder();
    completed(run);
    expect(run.promptFile).toBe(DEFAULT_PROMPT);
    const prompt = run.ai[0]!.prompt;
    expect(prompt).toContain('<KNOWLEDGE_FILE file_path="docs/style.md">');
    expect(prompt).toContain('<CONTEXT_FILE file_path="src/greet.ts">');
    expect(prompt).toContain('Earlier answer: greet looks fine as it is.');
    // the file-change format is only asked for when write_mode is on
    expect(prompt).not.toContain(template('file-content-whole.md'));
    expect(prompt).not.toContain(template('file-content-search-replace-auto.md'));

    const before = run.original(DEFAULT_PROMPT);
    const after = run.file(DEFAULT_PROMPT)!;
    const firstPart = before.slice(0, before.indexOf('\n====\n'));
    expect(after.startsWith(firstPart.trimEnd() + '\n')).toBe(true);
    const answer = belowSeparator(after)!;
    // the whole answer, file-change block included, is kept for the user; the earlier answer is replaced
    expect(answer).toContain(run.ai[0]!.response.trim());
    expect(answer).toContain('<AIP_FILE_CHANGE file_path="src/farewell.ts">');
    expect(answer).not.toContain('Earlier answer');

    expect(run.file('src/farewell.ts')).toBeUndefined();
    expect(run.touched()).toEqual([DEFAULT_PROMPT]);
  });
});

describe('write_mode on', () => {
  it('file_content_mode "whole": every file block is written as the complete file, new files included', () => {
    const run = runCoder('prompts/write-whole');
    completed(run);
    expect(run.ai[0]!.prompt).toContain(template('file-content-whole.md'));
    expect(run.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `Good day, ${name}.`;\n}\n');
    expect(run.file('src/farewell.ts')).toBe('export function farewell(name: string): string {\n  return `Goodbye, ${name}.`;\n}\n');
    expect(run.touched()).toEqual(['prompts/write-whole/coder-prompt.md', 'src/farewell.ts', 'src/greet.ts']);
    // the prompt file keeps the explanation, not the file blocks
    const answer = belowSeparator(run.file(run.promptFile)!)!;
    expect(answer).toContain('Made greet formal and added a farewell module.');
    expect(answer).toContain('Both files are complete.');
    expect(answer).not.toContain('AIP_FILE_CHANGE');
    expect(answer).not.toContain('Goodbye');
  });

  it('file_content_mode "search_replace_auto": SEARCH/REPLACE blocks edit an existing file, a new file is written whole', () => {
    const run = runCoder('prompts/write-sr');
    completed(run);
    expect(run.ai[0]!.prompt).toContain(template('file-content-search-replace-auto.md'));
    const original = run.original('src/math.ts');
    const expected = original
      .replace('export function add(', '/** The sum of a and b. */\nexport function add(')
      .replace('export function sub(', '/** The difference of a and b. */\nexport function sub(');
    expect(expected).not.toBe(original);
    expect(run.file('src/math.ts')).toBe(expected);
    expect(run.file('src/mul.ts')).toBe('export function mul(a: number, b: number): number {\n  return a * b;\n}\n');
    expect(run.touched()).toEqual(['prompts/write-sr/coder-prompt.md', 'src/math.ts', 'src/mul.ts']);
    expect(belowSeparator(run.file(run.promptFile)!)).not.toContain('SEARCH');
  });

  it('a SEARCH block that matches nothing leaves the file as it was and is reported in files_failed', () => {
    const run = runCoder('prompts/write-sr-miss');
    completed(run);
    expect(run.file('src/util.ts')).toBe(run.original('src/util.ts'));
    const [post] = callsIn(run, 'post');
    const [response] = post!.input.coder_responses as { files_changed: string[]; files_failed: string[] }[];
    expect(response!.files_failed).toEqual(['src/util.ts']);
    expect(response!.files_changed).not.toContain('src/util.ts');
  });
});

describe('the meta block in TOML, YAML and JSON (pack/SUB_AGENTS.md section 1)', () => {
  const runs: Record<string, CoderRun> = {};
  beforeAll(() => {
    for (const lang of ['toml', 'yaml', 'json']) runs[lang] = runCoder(`prompts/meta-${lang}`);
  });
  // everything a sub-agent saw and returned, except the prompt dir and the workbench in it (each format has its own)
  const seen = (lang: string) =>
    runs[lang]!.calls.map((c) => {
      const { coder_prompt_dir: _dir, coder_workbench: _wb, ...input } = c.input;
      return { agent: c.agent, stage: c.stage, input, response: c.response };
    });

  it('TOML: runs the string entry at pre and the table entry at its stages, with normalised configs', () => {
    const run = runs.toml!;
    completed(run);
    expect(run.calls.map((c) => `${c.stage}:${c.agent}`)).toEqual([
      'pre:my-agents/record.aip',
      'pre_task:my-agents/record.aip',
      'post:my-agents/record.aip',
    ]);
    expect(run.calls.map((c) => c.input.agent_config)).toEqual([
      { name: 'my-agents/record.aip', enabled: true, stages: ['pre'] },
      { name: 'my-agents/record.aip', enabled: true, stages: ['pre_task', 'post'], tag: 'table-entry' },
      { name: 'my-agents/record.aip', enabled: true, stages: ['pre_task', 'post'], tag: 'table-entry' },
    ]);
    // knowledge_globs is absent here, null in the YAML and JSON blocks: {} before pre either way
    expect(run.calls[0]!.input.coder_params).toEqual({
      base_dir: '',
      context_globs: ['src/greet.ts'],
      write_mode: false,
      knowledge_globs: [],
      structure_globs: [],
    });
  });

  it.each(['yaml', 'json'])('%s behaves as TOML: same sub-agent calls, same prompt to the model, same answer', (lang) => {
    const run = runs[lang]!;
    completed(run);
    expect(seen(lang)).toEqual(seen('toml'));
    // the prompt names the workbench folder, which is in the prompt dir
    const prompts = (l: string) => runs[l]!.ai.map((a) => a.prompt.replaceAll(`prompts/meta-${l}/`, 'prompts/meta-X/'));
    expect(prompts(lang)).toEqual(prompts('toml'));
    expect(belowSeparator(run.file(run.promptFile)!)).toBe(belowSeparator(runs.toml!.file(runs.toml!.promptFile)!));
  });
});
