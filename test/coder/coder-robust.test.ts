/**
 * End-to-end: the built coder pack (pack/main.aip) on prompt files, params and model answers that are legal
 * but unusual (upstream aipack-ai/packs-pro pro/coder/main.aip): no meta block, YAML nulls, CRLF, "====" inside a code fence,
 * base_dir spellings, nested working_globs, the size guard, answers without file blocks or with paths
 * outside base_dir. Fixture: fixtures/coder/pipeline, scenarios in prompts/robust/<case>/.
 */
import { describe, expect, it } from 'vitest';
import { belowSeparator, callsIn, completed, runCoder } from '../helpers/coder.ts';

const dir = (name: string) => `prompts/robust/${name}`;

type Response = { task_num: number; files_changed: string[]; files_failed: string[] };
const postResponses = (run: ReturnType<typeof runCoder>) => callsIn(run, 'post')[0]!.input.coder_responses as Response[];

describe('prompt files', () => {
  it('a prompt file without a meta block: the whole text is the instruction, no file is read, the answer goes below a new ====', () => {
    const run = runCoder(dir('no-meta'));
    completed(run);
    expect(run.ai).toHaveLength(1);
    expect(run.ai[0]!.prompt).toContain('[scenario: no-meta] Explain what greet returns.');
    expect(run.ai[0]!.prompt).not.toContain('FILE file_path=');
    // no base_dir means "" (the workspace root), as upstream reads it; no glob is given, so no file is listed
    expect(run.prints.some((p) => p.includes('base_dir'))).toBe(false);
    const after = run.file(run.promptFile)!;
    expect(after.startsWith(`${run.original(run.promptFile).trimEnd()}\n\n====\n> Task 1/1`)).toBe(true);
    expect(belowSeparator(after)).toContain(run.ai[0]!.response);
    expect(run.touched()).toEqual([run.promptFile]);
  });

  it('a YAML meta block whose every key is empty (null) runs as if the keys were absent', () => {
    const run = runCoder(dir('meta-null'));
    completed(run);
    expect(run.calls).toEqual([]);
    expect(run.ai.map((a) => a.model)).toEqual(['sim-model']);
    expect(run.ai[0]!.prompt).toContain('[scenario: meta-null] Explain what greet returns.');
    expect(run.ai[0]!.prompt).not.toContain('FILE file_path=');
    expect(run.prints).toContain('write_mode: false');
    expect(run.touched()).toEqual([run.promptFile]);
  });

  it('a CRLF prompt file: read as LF (no \\r in the instruction), and written back with CRLF line endings only', () => {
    const run = runCoder(dir('crlf'));
    completed(run);
    const prompt = run.ai[0]!.prompt;
    expect(prompt).toContain('[scenario: crlf] Explain greet.\nSecond line.');
    expect(prompt).not.toContain('\r');
    expect(prompt).not.toContain('a note');
    expect(prompt).toContain('Earlier CRLF answer.');
    const before = run.original(run.promptFile);
    const after = run.file(run.promptFile)!;
    expect(after.startsWith(before.slice(0, before.indexOf('====\r\n')))).toBe(true);
    expect(after).toContain('====\r\n> Task 1/1');
    expect(after).toContain(`${run.ai[0]!.response}\r\n`);
    expect(after).not.toMatch(/[^\r]\n/);
  });

  it('"====" and ">" lines inside a code fence of the instruction belong to the instruction', () => {
    const run = runCoder(dir('fence'));
    completed(run);
    const prompt = run.ai[0]!.prompt;
    expect(prompt).toContain('````md\n> A quote that stays in the example.\n\nTitle\n====\n````\n\nThen explain.');
    // the previous answer is only what is below the real separator
    expect(prompt).toContain('Your previous answer on this topic, possibly with notes the user added:\n\nEarlier fence answer.');
    const before = run.original(run.promptFile);
    const firstPart = before.slice(0, before.indexOf('\n====\n> Task')).trimEnd();
    expect(firstPart).toContain('Then explain.');
    const after = run.file(run.promptFile)!;
    expect(after.startsWith(`${firstPart}\n\n====\n> Task 1/1`)).toBe(true);
    expect(after).not.toContain('Earlier fence answer.');
  });

  it('the input may name the prompt file itself instead of its folder', () => {
    const run = runCoder(dir('no-meta'), { input: `${dir('no-meta')}/coder-prompt.md` });
    completed(run);
    expect(run.ai[0]!.prompt).toContain('[scenario: no-meta]');
    expect(run.touched()).toEqual([run.promptFile]);
  });
});

describe('params', () => {
  it.each(['base-dir-slash', 'base-dir-dot'])('%s: "src/" and "./src/" are the folder "src" for listing, writing and reporting', (name) => {
    const run = runCoder(dir(name));
    completed(run);
    const prompt = run.ai[0]!.prompt;
    expect(prompt).toContain('<CONTEXT_FILE file_path="util.ts">');
    expect(prompt).toContain('<WORKING_FILE file_path="greet.ts">');
    expect(run.file('src/greet.ts')).toContain('SEPARATOR');
    expect(run.touched()).toEqual([run.promptFile, 'src/greet.ts']);
    expect(postResponses(run).map((r) => r.files_changed)).toEqual([['src/greet.ts']]);
    expect(belowSeparator(run.file(run.promptFile)!)).toContain('> Files changed: 1 (src/greet.ts)');
  });

  it('working_globs: each file of a plain glob is a task, each nested list one task, a nested list matching nothing none', () => {
    const run = runCoder(dir('working-nested'));
    completed(run);
    expect(callsIn(run, 'pre_task').map((c) => c.input.coder_task)).toEqual([
      { num: 1, count: 2, working_files: ['src/util.ts'] },
      { num: 2, count: 2, working_files: ['src/greet.ts', 'src/math.ts'] },
    ]);
    expect(run.ai.map((a) => a.task)).toEqual([1, 2]);
    expect(run.ai[1]!.prompt).toContain('<WORKING_FILE file_path="src/greet.ts">');
    expect(run.ai[1]!.prompt).toContain('<WORKING_FILE file_path="src/math.ts">');
    const answers = belowSeparator(run.file(run.promptFile)!)!;
    expect(answers).toContain('> Task 1/2');
    expect(answers).toContain('> Working files: src/greet.ts, src/math.ts');
  });

  it('an invalid file_content_mode skips the run with a message naming the key, the allowed values and the value', () => {
    const run = runCoder(dir('bad-mode'));
    expect(run.outcome?.skipped).toBe("Invalid prompt parameter: file_content_mode must be 'whole', 'search_replace_auto' or 'udiffx', got 'diff'");
    expect(run.ai).toEqual([]);
    expect(run.touched()).toEqual([]);
  });

  it('an empty (null) item in a glob list is named as null, not as a Lua type', () => {
    const run = runCoder(dir('glob-null'));
    expect(run.outcome?.skipped).toBe('Invalid prompt parameter: context_globs[2] must be a string, got null');
    expect(run.touched()).toEqual([]);
  });

  it('a glob that AIPack refuses to list skips the run with its message, instead of failing Before All', () => {
    const run = runCoder(dir('glob-error'));
    expect(run.error).toBeUndefined();
    expect(run.outcome?.skipped).toMatch(/^Cannot list the files of the prompt: .*'\.\.\/outside\/\*\.ts'/);
    expect(run.touched()).toEqual([]);
  });
});

describe('the size guard (max_files_size_kb)', () => {
  it('skips the task and says so in the prompt file, with the sizes and what to change; the earlier answer is kept', () => {
    const run = runCoder(dir('size'));
    completed(run);
    expect(run.ai).toEqual([]);
    const before = run.original(run.promptFile);
    const after = run.file(run.promptFile)!;
    const firstPart = before.slice(0, before.indexOf('\n====\n')).trimEnd();
    expect(after).toBe(
      `${firstPart}\n\n====\n` +
        '> Task 1/1 skipped: Max files size reached.\n' +
        '>  Actual size: 248 B\n' +
        '>     Max size: 50 B\n' +
        '> Raise max_files_size_kb in the meta block, or narrow the globs.\n' +
        '\n====\n> Task 1/1\n\nEarlier answer, kept.\n',
    );
  });
});

describe('answers in write mode', () => {
  it('an answer without any file-change block writes no file and is kept whole in the prompt file', () => {
    const run = runCoder(dir('write-no-block'));
    completed(run);
    expect(run.touched()).toEqual([run.promptFile]);
    expect(postResponses(run)).toEqual([{ task_num: 1, content: run.ai[0]!.response, files_changed: [], files_failed: [] }]);
    const answer = belowSeparator(run.file(run.promptFile)!)!;
    expect(answer).toContain('> Files changed: 0');
    expect(answer).toContain(run.ai[0]!.response.trim());
  });

  it('a file path that is absolute or leaves base_dir is a failed change (nothing written there); the run and the other changes go on', () => {
    const run = runCoder(dir('escape'));
    completed(run);
    // base_dir = "src": "../docs/extra.md" is inside the workspace but outside base_dir
    expect(run.file('docs/extra.md')).toBe(run.original('docs/extra.md'));
    expect(run.touched()).toEqual([run.promptFile, 'src/@types/greet.d.ts', 'src/greet.ts']);
    expect(run.file('src/greet.ts')).toContain('Hey');
    const [response] = postResponses(run);
    // a name with "@" is a plain path under base_dir, not a pack reference
    expect(response!.files_changed).toEqual(['src/@types/greet.d.ts', 'src/greet.ts']);
    expect(response!.files_failed).toEqual(['src/../../outside.txt', 'src/../docs/extra.md', '/tmp/coder-escape.txt']);
    const answer = belowSeparator(run.file(run.promptFile)!)!;
    expect(answer).toContain('> FAILED: src/../../outside.txt: the path leaves base_dir');
    expect(answer).toContain('> FAILED: src/../docs/extra.md: the path leaves base_dir');
    expect(answer).toContain('> FAILED: /tmp/coder-escape.txt: the path is absolute; file paths must be relative to base_dir');
  });
});
