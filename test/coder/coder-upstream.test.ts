/**
 * A user of upstream pro@coder switches to this pack: their prompt files (written from upstream's template at the
 * seed commit 2bcfdc3 and from its current one) and their sub-agents (upstream's `on` events) run here, in each
 * file_content_mode, with the files written, the prompt file, the `.cache` reports, the pins and the prompt parts
 * sent checked. Fixture: fixtures/coder-upstream (see its README).
 */
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { belowSeparator, completed, DEFAULT_PROMPT, runCoder, type CoderRun } from '../helpers/coder.ts';

const UP = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url)).replace(/[\\/]$/, '');
const run = (dir?: string) => runCoder(dir, { workspace: UP });
// the run reports are in the workbench's .cache/ (the default workbench when the prompt sets none), as upstream
const cacheFile = (r: CoderRun, name: string) => r.file(`${nodePath.posix.dirname(r.promptFile)}/workbench-default/.cache/${name}`);
const pin = (r: CoderRun, iden: string) => r.pins.find((p) => p.iden === iden)?.content as { label: string; content: string } | undefined;

describe("upstream's current template (no base_dir, udiffx, pins, cache_explicit, auto_context, workbench, on: end)", () => {
  const r = run();

  it('runs from the default prompt file: base_dir absent is the workspace root, pinned globs are added in order', () => {
    completed(r);
    expect(r.promptFile).toBe(DEFAULT_PROMPT);
    const files = cacheFile(r, 'last_prompt_file_paths.md')!;
    // upstream's layout: all the files sent, then (for information) those the _pre / _post globs brought
    expect(files).toContain('# Knowledge Files\n\n## All resolve files(sent to AI with content, in this order)\n\n- docs/conventions.md\n');
    // context_globs, then context_globs_post
    expect(files).toContain(
      '# Context Files\n\n## All resolve files(sent to AI with content, in this order)\n\n- src/greet.ts\n- src/math.ts\n- docs/plan.md\n\n## Post (just for info, included in the All resolved files above)\n\n- docs/plan.md\n\n',
    );
  });

  it('warns about none of the template keys: `workbench:` with its keys commented out is null, the default workbench (auto_context is switched off there)', () => {
    expect(r.prints.filter((p) => p.startsWith('WARNING: '))).toEqual([]);
    expect(r.file('.aipack/.prompt/pro@coder/user-templates/workbench-chat-rules.md')).toContain('chat.md');
  });

  it('sends the udiffx instructions and marks at most three parts for caching (cache_explicit)', () => {
    const parts = r.ai[0]!.parts;
    expect(parts.map((p) => [p.role, p.cache])).toEqual([
      ['system', true],
      ['user', true],
      ['user', true],
      ['user', false],
      ['user', false],
    ]);
    expect(parts[1]!.content).toContain('<FILE_CHANGES>');
    expect(parts[1]!.content).toContain('FILE_PATCH');
    expect(parts[1]!.content).toContain('<suggested_git_command>'); // suggest_git_commit defaults to write_mode
    expect(parts[2]!.content).toContain('<KNOWLEDGE_FILE file_path="docs/conventions.md">');
    expect(parts[3]!.content).toContain('<CONTEXT_FILE file_path="docs/plan.md">');
    expect(parts[4]!.content).toContain('[scenario: current] Add a farewell function');
    expect(parts[4]!.content).toContain('(My local date and time: 2026-02-02T20:20:00+00:00 (Monday).)');
    expect(parts[4]!.content).toContain('Keep every existing comment');
  });

  it('refuses the changes into an installed pack and out of base_dir before applying any, and reports each failed file', () => {
    expect(r.touched().filter((p) => p.startsWith('.aipack/pack') || p.startsWith('..'))).toEqual([]);
    const answer = belowSeparator(r.file(r.promptFile)!)!;
    expect(answer).toContain(
      '> FAILED: .aipack/pack/custom/pro/coder/main.aip: the path is inside .aipack/pack, which AIPack protects (installed packs and configuration)',
    );
    expect(answer).toContain('> FAILED: ../outside.txt: the path leaves base_dir');
    expect(answer).toContain('Added `farewell` and changed the greeting.');
    expect(answer).not.toContain('FILE_CHANGES');
    const report = cacheFile(r, 'last_file_change_fails_report.md')!;
    // upstream's layout: a title, then per file its hunk count and message
    expect(report).toMatch(/^# Apply Fail Repport\n\n2\/2 files have hunk apply failures\.\n/);
    expect(report).toContain('## .aipack/pack/custom/pro/coder/main.aip\n');
    expect(report).toContain('## ../outside.txt\n(0 hunks failed to apply)\n\nthe path leaves base_dir\n');
    expect(pin(r, 'changes_failed')?.label).toBe('WARNING');
    expect(pin(r, 'changes_failed')?.content).toContain('- ../outside.txt (the path leaves base_dir)');
    expect(pin(r, 'gitc')).toEqual({ label: 'Git Commit', content: 'git add -A . && git commit -a -m "+ greet - add farewell"' });
    // the raw answer keeps the whole FILE_CHANGES block
    expect(cacheFile(r, 'last_ai_responses_for_raw.md')).toContain('<FILE_DELETE file_path="../outside.txt" />');
  });

  it("applies the checked directives with AIPack's udiffx, unstubbed: patches located without line numbers, one needing the fuzzy tier, a new file, a rename, a delete", () => {
    expect(r.file('src/farewell.ts')).toBe('export function farewell(name: string): string {\n  return `Goodbye, ${name}.`;\n}\n');
    expect(r.file('src/greet.ts')).toBe(r.original('src/greet.ts').replace('`Hello, ${name}!`', '`Hello, ${name}.`'));
    // the removed line differs from the file in case, backticks and end punctuation: the fuzzy tier finds it
    expect(r.file('docs/plan.md')).toBe('# Plan\n\n1. Add `farewell` next to `greet` (done).\n2. Say goodbye politely.\n');
    expect(r.file('docs/todo.md')).toBe(r.original('scratch/todo.md'));
    expect(r.file('scratch/todo.md')).toBeUndefined();
    expect(r.file('scratch/obsolete.md')).toBeUndefined();
    expect(r.touched()).toEqual([
      '.aipack/.prompt/pro@coder/coder-prompt.md',
      'docs/plan.md',
      'docs/todo.md',
      'notes/run-log.md',
      'scratch/obsolete.md',
      'scratch/todo.md',
      'src/farewell.ts',
      'src/greet.ts',
    ]);
    const answer = belowSeparator(r.file(r.promptFile)!)!;
    expect(answer).toContain('> Files changed: 5 (src/farewell.ts, src/greet.ts, docs/plan.md, docs/todo.md, scratch/obsolete.md)');
    expect(answer).not.toContain('not simulated');
    // the two refused ones are the only failures, in the report as in the prompt file
    const report = cacheFile(r, 'last_file_change_fails_report.md')!;
    expect(report.match(/^## /gm)).toHaveLength(2);
    expect(r.file('notes/run-log.md')).toBe('stage=post event=end\ntask 1: 5 changed, 2 failed\n');
  });

  it('runs the `on: end` sub-agent at post, where it reads stage, event and the task results', () => {
    expect(r.calls.map((c) => [c.agent, c.stage, c.input.stage, c.input.event])).toEqual([['my-agents/after-run.aip', 'post', 'post', 'end']]);
    expect(r.file('notes/run-log.md')).toMatch(/^stage=post event=end\ntask 1: \d changed, \d failed\n$/);
  });
});

describe("upstream's seed-time template (base_dir \"\", no file_content_mode so udiffx, an image)", () => {
  const r = run('prompts/seed');

  it('applies the patch whose hunks fit, keeps the fitting hunk of a patch with a missing one (as AIPack), and pins the missing-files request', () => {
    completed(r);
    const math = r.original('src/math.ts')
      .replace('export function add(', '/** The sum of a and b. */\nexport function add(')
      .replace('export function sub(', '/** The difference of a and b. */\nexport function sub(');
    expect(r.file('src/math.ts')).toBe(math);
    // greet.ts: its first hunk fitted and was written by udiffx, its second one did not: the file keeps the first
    expect(r.file('src/greet.ts')).toBe(r.original('src/greet.ts').replace('string {\n', 'string {\n  // formal from now on\n'));
    expect(r.touched()).toEqual(['prompts/seed/coder-prompt.md', 'src/greet.ts', 'src/math.ts']);
    const report = cacheFile(r, 'last_file_change_fails_report.md')!;
    // AIPack 0.8.15 (the default) gives no per-hunk detail (error_hunks came with 0.8.21)
    expect(report).toBe(
      "# Apply Fail Repport\n\n1/1 files have hunk apply failures.\n\n## src/greet.ts\n(0 hunks failed to apply)\n\n1 of 2 hunks failed to apply for 'src/greet.ts'\n\nFull raw AI response:\n./prompts/seed/workbench-default/.cache/last_ai_responses_for_raw.md\n\n",
    );
    expect(pin(r, 'changes_failed')?.content).toContain("- src/greet.ts (FILE_PATCH: 1 of 2 hunks failed to apply for 'src/greet.ts')");
    expect(pin(r, 'mf_msg')).toEqual({ label: 'Missing Info:', content: 'The style guide would help.' });
    expect(pin(r, 'mf_files')).toEqual({ label: 'Missing Files:', content: '- docs/style-guide.md' });
  });

  it('with AIPack 0.8.33: sends aip.udiffx.file_changes_instruction() and reports each failed hunk with its cause', () => {
    const recent = runCoder('prompts/seed', { workspace: UP, aipackVersion: '0.8.33' });
    completed(recent);
    expect(recent.file('src/greet.ts')).toBe(r.file('src/greet.ts'));
    expect(recent.file('src/math.ts')).toBe(r.file('src/math.ts'));
    const sent = recent.ai[0]!.parts.map((p) => p.content).join('\n');
    expect(sent).toContain('# How to change files'); // the simulator's own wording of the udiffx instruction
    const report = cacheFile(recent, 'last_file_change_fails_report.md')!;
    expect(report).toContain(
      "## src/greet.ts\n(1/1 hunks failed to apply)\n\n1 of 2 hunks failed to apply for 'src/greet.ts'\n\n### Failed Hunk 1\n\npatch completion error: Could not find patch context in original file (starting search from line 1)\n\n````\n@@\n-  return `Hi, ${name}!`;\n+  return `Good day, ${name}.`;\n\n````\n",
    );
  });

  it('attaches the inline image, lists it in the file report, and sends no cache mark without cache_explicit', () => {
    const parts = r.ai[0]!.parts;
    // AIPack's attachment message: a text part naming the file, then the file
    // an inline image is given by absolute path, as upstream gives it
    const mockup = nodePath.join(UP, 'prompts/seed/mockup.png');
    expect(parts[0]).toEqual({
      role: 'user',
      cache: false,
      content: `Here is file attachment.\nFile Path: '${mockup}'\nFile Name: 'mockup.png'\n\nFile Title: the layout\n`,
      attachment: { source: mockup, name: 'mockup.png', title: 'the layout', kind: 'image', mime: 'image/png', size: 8 },
    });
    expect(parts.every((p) => !p.cache)).toBe(true);
    const sent = parts.map((p) => p.content).join('\n');
    // udiffx instructions (the pack's template: AIPack 0.8.15 has no aip.udiffx.file_changes_instruction)
    expect(sent).toContain('<FILE_CHANGES>');
    expect(sent).not.toContain('<<<<<<< SEARCH');
    expect(parts.some((p) => p.content.includes('assume Python'))).toBe(true); // default_language
    expect(cacheFile(r, 'last_prompt_file_paths.md')).toContain(`# Attachments\n\n- ${mockup}\n`);
    // structure paths grouped by folder, as upstream lists them
    expect(cacheFile(r, 'last_prompt_file_paths.md')).toContain('# Structure Files\n\n(Only file paths, not their content)\n\n- src/\n  - greet.ts\n  - math.ts\n\n');
  });

  it('writes the answer without its file blocks below ====, and keeps the part above as it was', () => {
    const before = r.original(r.promptFile);
    const after = r.file(r.promptFile)!;
    expect(after.startsWith(before.slice(0, before.indexOf('\n====\n')).trimEnd() + '\n\n====\n')).toBe(true);
    const answer = belowSeparator(after)!;
    expect(answer).toContain('> Files changed: 1 (src/math.ts)');
    expect(answer).toContain("> FAILED: src/greet.ts: FILE_PATCH: 1 of 2 hunks failed to apply for 'src/greet.ts'");
    expect(answer).toContain('Documented the math helpers; greet could not be matched.');
    expect(answer).not.toContain('FILE_CHANGES');
    // the answers report keeps the text around the change block as it is (upstream's extruded answer)
    const collapse = (t: string) => t.trim().replace(/\n{3,}/g, '\n\n');
    expect(collapse(cacheFile(r, 'last_ai_responses_for_prompt.md')!)).toBe(collapse(`====\n${answer}`));
  });
});

describe('seed-time template with file_content_mode whole, default_language, suggest_git_commit = false, attachments', () => {
  const r = run('prompts/seed-whole');

  it('writes the whole file, uses the language given, asks for no commit, and names the misspelt key', () => {
    completed(r);
    expect(r.file('src/greet.ts')).toBe('export function greet(name: string): string {\n  return `HELLO, ${name.toUpperCase()}!`;\n}\n');
    const sent = r.ai[0]!.parts.map((p) => p.content).join('\n');
    expect(sent).toContain('assume TypeScript');
    expect(sent).not.toContain('suggested_git_command');
    expect(sent).not.toContain('Earlier answer'); // write_mode: the history below ==== is not sent
    expect(r.prints).toContain("WARNING: unknown prompt parameter 'contxt_globs': it is ignored");
    expect(cacheFile(r, 'last_file_change_fails_report.md')).toBeUndefined();
    // no answer pin; the run pins its attachments, with their sizes (aip.text.format_size), as upstream
    expect(r.pins).toEqual([{ iden: 'attachments', content: { label: 'Attachments:', content: '- docs/plan.md (    43 B )' } }]);
    // attachments listed in the params (upstream's later form), relative to the workspace
    expect(r.ai[0]!.parts[0]!.attachment).toEqual({ source: 'docs/plan.md', name: 'plan.md', title: 'the plan', kind: 'file', mime: 'application/octet-stream', size: 43 });
  });
});

describe('a sub-agent on workbench::done', () => {
  it('runs once the start queue is done, in the event form, and reads the default workbench (no workbench: key)', () => {
    const r = run('prompts/on-workbench');
    completed(r);
    expect(r.prints.filter((p) => p.startsWith('WARNING: '))).toEqual([]);
    // the plain-string entry is stage form: it runs at pre only, and never on workbench::done
    expect(r.calls.map((c) => [c.agent, c.stage, c.input.event])).toEqual([
      ['my-agents/after-run.aip', 'pre', 'start'],
      ['my-agents/after-run.aip', 'pre', 'workbench::done'],
    ]);
    const done = r.calls[1]!.input;
    // its own queue: the start run is not in its history
    expect(done.sub_agents_prev).toEqual([]);
    expect(done.coder_workbench).toEqual({
      dir: './prompts/on-workbench/workbench-default',
      cache_dir: './prompts/on-workbench/workbench-default/.cache',
      prompt_cache_dir: './prompts/on-workbench/.cache',
      include_kinds: ['text', 'pdf', 'image'],
      data_dir: './prompts/on-workbench/workbench-default/data',
    });
    expect(r.file('notes/run-log.md')).toBe('stage=pre event=workbench::done\n');
  });
});
