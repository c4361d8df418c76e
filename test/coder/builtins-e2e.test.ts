/**
 * The pack's built-in sub-agents in real coder runs (scripted answers): `auto_context` on a workspace of 200
 * files (code maps written, the picked files sent to the coder, a second run asks no summary), and `auto_fix`
 * repairing the failed hunks of a patch with the second model of its sequence.
 */
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedAi, type ScriptedResponse } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import type { Vfs } from '../../src/support/vfs.ts';

const WS = '/virtual/builtins-ws';
const PROMPT = '.aipack/.prompt/pro@coder/coder-prompt.md';
const MAPS = '.aipack/.prompt/pro@coder/.cache/code-map';

function runCoder(vfs: Vfs, answers: ScriptedResponse[]) {
  const sim = new Simulator({ workspaceDir: WS, vfs, packs: [REPO_PACK], aipackVersion: '0.8.33', ai: ScriptedAi.fromList(answers) });
  const outcome = sim.run({ name: 'pro@coder', baseDir: WS });
  const ai = sim.trace.of('ai').map((e) => ({ agent: e.agent, model: e.model, prompt: e.prompt }));
  const prints = sim.trace.of('print').map((e) => e.text);
  const tasks = sim.trace.of('tasks').map((e) => ({ agent: e.agent, concurrency: e.concurrency, count: e.slots.length }));
  return { outcome, ai, prints, tasks, file: (rel: string) => vfs.readFile(`${WS}/${rel}`) };
}

const prompt = (meta: string, inst: string) => `\`\`\`toml\n#!meta\n${meta}\n\`\`\`\n${inst}\n\n====\n`;

describe('auto_context on a workspace of 200 files', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`src/mod-${String(i).padStart(3, '0')}.ts`] = `export const v${i} = ${i};\n`;
  files[PROMPT] = prompt(
    'model = "big"\ncontext_globs = ["src/**/*.ts"]\nauto_context = { model = "flash", code_map_model = "lite" }',
    'Double v7 and v123.',
  );
  const answers = (): ScriptedResponse[] => [
    { agent: 'pro@coder/code-map', match: 'file_path="(src/mod-\\d+\\.ts)"', content: '<FILE_INFO>{"summary": "A module with one constant", "when_to_use": "when its constant changes"}</FILE_INFO>', reusable: true },
    { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/mod-123.ts", "src/mod-007.ts"]</needed_context_files>' },
    { agent: 'pro@coder', content: 'Done.' },
  ];
  const vfs = createOverlayVfs(WS, { files });
  const first = runCoder(vfs, answers());
  const mapAfterFirst = first.file(`${MAPS}/context-code-map.json`);
  const second = runCoder(vfs, answers());

  it('summarizes every file once with code_map_model, then selects with its model', () => {
    expect(first.outcome.skipped).toBeUndefined();
    const cm = first.ai.filter((c) => c.agent === 'pro@coder/code-map');
    expect(cm.length).toBe(200);
    expect(new Set(cm.map((c) => c.model))).toEqual(new Set(['lite']));
    expect(first.ai.filter((c) => c.agent !== 'pro@coder/code-map').map((c) => [c.agent, c.model])).toEqual([
      ['pro@coder/auto-context', 'flash'],
      ['pro@coder', 'big'],
    ]);
  });

  it('asks for the summaries 8 at a time (code-map input_concurrency default)', () => {
    expect(first.tasks.find((t) => t.agent === 'pro@coder/code-map')).toEqual({ agent: 'pro@coder/code-map', concurrency: 8, count: 200 });
  });

  it('writes the map: one entry per file with its BLAKE3 hash', () => {
    const map = JSON.parse(mapAfterFirst ?? 'null') as { file_map: Record<string, { hash: string; summary: string }> };
    expect(Object.keys(map.file_map).length).toBe(200);
    expect(map.file_map['src/mod-042.ts']!.summary).toBe('A module with one constant');
    expect(map.file_map['src/mod-042.ts']!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sends the coder only the picked files, and the selector every description', () => {
    const selector = first.ai.find((c) => c.agent === 'pro@coder/auto-context')!.prompt;
    expect(selector.match(/^- src\/mod-\d+\.ts$/gm)!.length).toBe(200);
    const coder = first.ai.find((c) => c.agent === 'pro@coder')!.prompt;
    expect(coder.match(/<CONTEXT_FILE file_path="[^"]+">/g)).toEqual(['<CONTEXT_FILE file_path="src/mod-007.ts">', '<CONTEXT_FILE file_path="src/mod-123.ts">']);
  });

  it('a second run asks no summary for the unchanged files and leaves the map as it was', () => {
    expect(second.outcome.skipped).toBeUndefined();
    expect(second.ai.map((c) => c.agent)).toEqual(['pro@coder/auto-context', 'pro@coder']);
    expect(second.file(`${MAPS}/context-code-map.json`)).toBe(mapAfterFirst);
  });
});

describe('auto_fix repairs failed hunks with the next model of its sequence', () => {
  const UTIL = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n';
  // the coder's patch: hunk 1 fits, hunks 2 and 3 name lines the file does not have
  const patch =
    '<FILE_PATCH file_path="src/util.ts">\n@@\n-export const a = 1;\n+export const a = 10;\n@@\n-export const bb = 2;\n+export const b = 20;\n@@\n-export const cc = 3;\n+export const c = 30;\n</FILE_PATCH>';
  // the file auto-fix sees keeps hunk 1 (AIPack writes the hunks that fit), so the repair patches b and c
  const fixed =
    '<FILE_CHANGES>\n<FILE_PATCH file_path="src/util.ts">\n@@\n export const a = 10;\n-export const b = 2;\n-export const c = 3;\n+export const b = 20;\n+export const c = 30;\n</FILE_PATCH>\n</FILE_CHANGES>';
  const vfs = createOverlayVfs(WS, {
    files: { 'src/util.ts': UTIL, [PROMPT]: prompt('model = "big"\nwrite_mode = true\nauto_fix = "model-a, model-b"', 'Multiply by ten.') },
  });
  const r = runCoder(vfs, [
    { agent: 'pro@coder', content: `Done.\n\n<FILE_CHANGES>\n${patch}\n</FILE_CHANGES>\n` },
    // model-a answers with the same broken hunks; model-b fixes them
    { agent: 'pro@coder/auto-fix', match: '^', content: `<FILE_CHANGES>\n${patch}\n</FILE_CHANGES>` },
    { agent: 'pro@coder/auto-fix', content: fixed },
  ]);

  it('asks model-a, then model-b, which fixes the file', () => {
    expect(r.ai.map((c) => [c.agent, c.model])).toEqual([
      ['pro@coder', 'big'],
      ['pro@coder/auto-fix', 'model-a'],
      ['pro@coder/auto-fix', 'model-b'],
    ]);
    expect(r.ai[1]!.prompt).toContain('2 of 3 hunks failed');
    expect(r.file('src/util.ts')).toBe('export const a = 10;\nexport const b = 20;\nexport const c = 30;\n');
  });

  it('the prompt file says which model fixed what, and reports no failure', () => {
    const answer = r.file(PROMPT)!.split('\n====\n')[1]!;
    expect(answer).toContain('> Files changed: 1 (src/util.ts)');
    expect(answer).toContain('> Auto-fix: src/util.ts fixed by model-b (attempt 2)');
    expect(answer).not.toContain('FAILED');
    expect(r.file('.aipack/.prompt/pro@coder/workbench-default/.cache/last_file_change_fails_report.md')).toBeUndefined();
  });
});

describe("an upstream prompt with auto_context: flash and auto_fix: lite", () => {
  const meta = [
    '```yaml',
    '#!meta (parametric prompt)',
    'knowledge_globs:',
    'base_dir: ""',
    'context_globs: [src/**/*.*]',
    'write_mode: true',
    'file_content_mode: udiffx',
    'model: gpt-5.2',
    'auto_context: flash',
    'auto_fix: lite',
    '```',
    'Make greet say hello.',
    '',
    '====',
    '',
  ].join('\n');
  const vfs = createOverlayVfs(WS, {
    files: { 'src/greet.ts': "export const greet = () => 'hi';\n", 'src/math.ts': 'export const one = 1;\n', [PROMPT]: meta },
  });
  const r = runCoder(vfs, [
    { agent: 'pro@coder/code-map', match: 'file_path="src/greet\\.ts"', content: '<FILE_INFO>{"summary": "Greeting", "when_to_use": "greetings"}</FILE_INFO>' },
    { agent: 'pro@coder/code-map', content: '<FILE_INFO>{"summary": "Math", "when_to_use": "numbers"}</FILE_INFO>' },
    { agent: 'pro@coder/auto-context', content: '<needed_context_files>\n["src/greet.ts"]\n</needed_context_files>\n<context_reasoning>\n- greet lives there\n</context_reasoning>' },
    { agent: 'pro@coder', content: "<FILE_CHANGES>\n<FILE_PATCH file_path=\"src/greet.ts\">\n@@\n-export const greet = () => 'hey';\n+export const greet = () => 'hello';\n</FILE_PATCH>\n</FILE_CHANGES>\n" },
    { agent: 'pro@coder/auto-fix', content: "<FILE_CHANGES>\n<FILE_PATCH file_path=\"src/greet.ts\">\n@@\n-export const greet = () => 'hi';\n+export const greet = () => 'hello';\n</FILE_PATCH>\n</FILE_CHANGES>" },
  ]);

  it('maps and selects with flash, codes with the coder model, fixes the failed patch with lite', () => {
    expect(r.outcome.skipped).toBeUndefined();
    expect(r.ai.map((c) => [c.agent, c.model])).toEqual([
      ['pro@coder/code-map', 'flash'],
      ['pro@coder/code-map', 'flash'],
      ['pro@coder/auto-context', 'flash'],
      ['pro@coder', 'gpt-5.2'],
      ['pro@coder/auto-fix', 'lite'],
    ]);
    expect(r.ai[3]!.prompt).toContain('<CONTEXT_FILE file_path="src/greet.ts">');
    expect(r.ai[3]!.prompt).not.toContain('<CONTEXT_FILE file_path="src/math.ts">');
    expect(r.file('src/greet.ts')).toBe("export const greet = () => 'hello';\n");
    expect(r.file(PROMPT)).toContain('> Auto-fix: src/greet.ts fixed by lite (attempt 1)');
    expect(r.prints.filter((p) => p.startsWith('WARNING'))).toEqual([]);
  });
});

describe('code-map: a run that fails midway leaves whole maps', () => {
  const MAP = `${MAPS}/context-code-map.json`;
  const entry = (summary: string) => `<FILE_INFO>{"summary": "${summary}", "when_to_use": "always"}</FILE_INFO>`;
  const vfs = createOverlayVfs(WS, {
    files: {
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'src/c.ts': 'export const c = 3;\n',
      [PROMPT]: prompt('context_globs = ["src/**/*.ts"]\nauto_context = "flash"', 'Change b.'),
    },
  });
  const r = runCoder(vfs, [
    { agent: 'pro@coder/code-map', match: 'file_path="src/a\\.ts"', content: entry('A') },
    { agent: 'pro@coder/code-map', match: 'file_path="src/b\\.ts"', content: 'the model gave up' },
    { agent: 'pro@coder/code-map', match: 'file_path="src/c\\.ts"', content: entry('C') },
  ]);

  it('the coder run is skipped with the failure, naming the file and quoting the answer', () => {
    expect(r.outcome.skipped).toMatch(/^Sub-agent \[pro@coder\/auto-context\] failed: [\s\S]*src\/b\.ts: the answer has no <FILE_INFO> tag: "the model gave up"/);
    expect(r.ai.filter((c) => c.agent !== 'pro@coder/code-map')).toEqual([]);
  });

  it('the map holds every usable answer, parses, and no temporary file is left', () => {
    const map = JSON.parse(r.file(MAP) ?? 'null') as { file_map: Record<string, { summary: string }> };
    expect(Object.keys(map.file_map).sort()).toEqual(['src/a.ts', 'src/c.ts']);
    expect(r.file(`${MAP}.tmp`)).toBeUndefined();
  });
});

describe("auto_context runs after the user's own start sub-agents", () => {
  const vfs = createOverlayVfs(WS, {
    files: {
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'my/narrow.aip': '# Output\n\n```lua\nreturn { coder_params = { context_globs = { "src/a.ts" } } }\n```\n',
      [PROMPT]: prompt('context_globs = ["src/**/*.ts"]\nsub_agents = [{ name = "my/narrow.aip", on = "start" }]\nauto_context = "flash"', 'Change a.'),
    },
  });
  const r = runCoder(vfs, [
    { agent: 'pro@coder/code-map', content: '<FILE_INFO>{"summary": "A", "when_to_use": "a"}</FILE_INFO>', reusable: true },
    { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/a.ts"]</needed_context_files>' },
    { agent: 'pro@coder', content: 'Done.' },
  ]);

  it("maps and offers only the files the user's sub-agent left in context_globs", () => {
    expect(r.outcome.skipped).toBeUndefined();
    expect(r.ai.map((c) => [c.agent, /file_path="([^"]+)"/.exec(c.prompt)?.[1] ?? ''])).toEqual([
      ['pro@coder/code-map', 'src/a.ts'],
      ['pro@coder/auto-context', ''],
      ['pro@coder', 'src/a.ts'],
    ]);
  });
});
