/**
 * The coder pack's udiffx mode against the simulated aip.udiffx (no stub): one call for the checked directives,
 * items matched to directives by path, a file whose patch failed part-way keeping the hunks that fitted (as AIPack), and every failure reported
 * per file with the answer kept.
 */
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import type { Mocks } from '../../src/runtime/mocks.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const PROMPT = '.aipack/.prompt/pro@coder/coder-prompt.md';
const UTIL = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\n';

function coder(answer: string, o: { version?: string; mocks?: Mocks; meta?: string } = {}) {
  const ws = tmpDir();
  write(ws, 'src/util.ts', UTIL);
  write(ws, 'src/keep.ts', 'keep\n');
  // no file_content_mode: udiffx is the default
  write(ws, PROMPT, `\`\`\`toml\n#!meta\n${o.meta ?? 'context_globs = ["src/**/*.ts"]'}\nwrite_mode = true\n\`\`\`\nChange things.\n\n====\n`);
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], aipackVersion: o.version ?? '0.8.33', mocks: o.mocks, ai: ScriptedAi.fromList([{ content: answer }]) });
  sim.run({ name: 'pro@coder', baseDir: ws });
  const file = (rel: string) => sim.vfs.readFile(nodePath.join(ws, rel));
  const answerText = file(PROMPT)!.split('\n====\n')[1]!;
  const report = file('.aipack/.prompt/pro@coder/workbench-default/.cache/last_file_change_fails_report.md');
  const sent = sim.trace.of('ai').map((e) => e.prompt).join('\n');
  const prints = sim.trace.of('print').filter((e) => e.agent === 'pro@coder').map((e) => e.text);
  return { file, answer: answerText, report, sent, prints };
}

const changes = (...directives: string[]) => `Done.\n\n<FILE_CHANGES>\n${directives.join('\n')}\n</FILE_CHANGES>\n`;

describe('coder pack, udiffx mode (the default)', () => {
  it("udiffx_inst_debug sends the pack's own udiffx instruction instead of AIPack's, and prints its value", () => {
    const meta = 'context_globs = ["src/**/*.ts"]';
    const plain = coder('Nothing.', { meta });
    expect(plain.sent).toContain('# How to change files'); // AIPack 0.8.33's aip.udiffx.file_changes_instruction()
    expect(plain.prints.filter((p) => p.startsWith('udiffx_inst_debug'))).toEqual([]);
    const debug = coder('Nothing.', { meta: `${meta}\nudiffx_inst_debug = true` });
    expect(debug.sent).not.toContain('# How to change files');
    expect(debug.sent).toContain('<FILE_CHANGES>');
    expect(debug.prints.filter((p) => p.startsWith('udiffx_inst_debug')).map((p) => p.split(/\s+/))).toEqual([['udiffx_inst_debug', 'true']]);
    // any value but false turns it on; false is off
    expect(coder('Nothing.', { meta: `${meta}\nudiffx_inst_debug = "yes"` }).sent).not.toContain('# How to change files');
    expect(coder('Nothing.', { meta: `${meta}\nudiffx_inst_debug = false` }).sent).toContain('# How to change files');
  });

  it('applies a patch with several hunks located without line numbers', () => {
    const r = coder(changes('<FILE_PATCH file_path="src/util.ts">\n@@\n-export const a = 1;\n+export const a = 10;\n@@\n export const b = 2;\n-export const c = 3;\n+export const c = 30;\n</FILE_PATCH>'));
    expect(r.file('src/util.ts')).toBe('export const a = 10;\nexport const b = 2;\nexport const c = 30;\n');
    expect(r.answer).toContain('> Files changed: 1 (src/util.ts)');
    expect(r.report).toBeUndefined();
  });

  it('a patch that fails part-way keeps the hunks that fitted (as AIPack does), fails with its hunks, and the next directives still apply', () => {
    const r = coder(
      changes(
        '<FILE_PATCH file_path="src/util.ts">\n@@\n-export const a = 1;\n+export const a = 10;\n@@\n-export const zz = 0;\n+export const zz = 1;\n</FILE_PATCH>',
        '<FILE_NEW file_path="src/new.ts">\nnew\n</FILE_NEW>',
      ),
    );
    expect(r.file('src/util.ts')).toBe(UTIL.replace('a = 1;', 'a = 10;'));
    expect(r.file('src/new.ts')).toBe('new\n');
    expect(r.answer).toContain("> FAILED: src/util.ts: FILE_PATCH: 1 of 2 hunks failed to apply for 'src/util.ts'");
    expect(r.answer).toContain('> Files changed: 1 (src/new.ts)');
    expect(r.answer).toContain('Done.');
    // upstream's layout of the report: the file, its hunk count, AIPack's message, each failed hunk with its cause
    expect(r.report).toBe(
      "# Apply Fail Repport\n\n1/1 files have hunk apply failures.\n\n## src/util.ts\n(1/1 hunks failed to apply)\n\n1 of 2 hunks failed to apply for 'src/util.ts'\n\n### Failed Hunk 1\n\npatch completion error: Could not find patch context in original file (starting search from line 1)\n\n````\n@@\n-export const zz = 0;\n+export const zz = 1;\n\n````\n\nFull raw AI response:\n.aipack/.prompt/pro@coder/workbench-default/.cache/last_ai_responses_for_raw.md\n\n",
    );
    expect(r.report).not.toContain('left as it was');
  });

  it('a file other directives touch too keeps the hunks that fitted as well', () => {
    const r = coder(
      changes(
        '<FILE_APPEND file_path="src/util.ts">\nexport const d = 4;\n</FILE_APPEND>',
        '<FILE_PATCH file_path="src/util.ts">\n@@\n-export const a = 1;\n+export const a = 10;\n@@\n-export const zz = 0;\n+export const zz = 1;\n</FILE_PATCH>',
      ),
    );
    expect(r.file('src/util.ts')).toBe('export const a = 10;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n');
    expect(r.report).toContain("1 of 2 hunks failed to apply for 'src/util.ts'");
  });

  it("a directive this AIPack's udiffx does not know is reported, and the others are matched to their own status", () => {
    // AIPack 0.8.18 has no FILE_APPEND: its udiffx gives no item for it
    const r = coder(changes('<FILE_APPEND file_path="src/keep.ts">\nmore\n</FILE_APPEND>', '<FILE_DELETE file_path="src/util.ts" />'), { version: '0.8.18' });
    expect(r.file('src/keep.ts')).toBe('keep\n');
    expect(r.file('src/util.ts')).toBeUndefined();
    expect(r.answer).toContain("> FAILED: src/keep.ts: FILE_APPEND: this AIPack's udiffx did not apply <FILE_APPEND> (no status for it)");
    expect(r.answer).toContain('> Files changed: 1 (src/util.ts)');
  });

  it('with base_dir, paths are relative to it for udiffx and reported from the workspace; a rename reports its new path', () => {
    const r = coder(
      changes(
        '<FILE_PATCH file_path="util.ts">\n@@\n export const b = 2;\n-export const c = 3;\n+export const c = 33;\n</FILE_PATCH>',
        '<FILE_RENAME from_path="keep.ts" to_path="lib/kept.ts" />',
      ),
      { meta: 'base_dir = "src"\ncontext_globs = ["**/*.ts"]' },
    );
    expect(r.file('src/util.ts')).toBe('export const a = 1;\nexport const b = 2;\nexport const c = 33;\n');
    expect(r.file('src/lib/kept.ts')).toBe('keep\n');
    expect(r.file('src/keep.ts')).toBeUndefined();
    expect(r.answer).toContain('> Files changed: 2 (src/util.ts, src/lib/kept.ts)');
    expect(r.report).toBeUndefined();
  });

  it('an unclosed FILE_CHANGES block applies nothing and is reported; the answer is kept', () => {
    const r = coder('Here.\n\n<FILE_CHANGES>\n<FILE_DELETE file_path="src/util.ts" />\n');
    expect(r.file('src/util.ts')).toBe(UTIL);
    expect(r.answer).toContain('> FAILED: <FILE_CHANGES>: the <FILE_CHANGES> block is not closed');
    expect(r.answer).toContain('Here.');
  });

  it('when aip.udiffx.apply_file_changes raises, every checked change fails with the cause and nothing is written', () => {
    const r = coder(changes('<FILE_DELETE file_path="src/util.ts" />', '<FILE_NEW file_path="src/n.ts">\nn\n</FILE_NEW>'), {
      mocks: { 'aip.udiffx.apply_file_changes': { lua: 'error("udiffx broke")' } },
    });
    expect(r.file('src/util.ts')).toBe(UTIL);
    expect(r.file('src/n.ts')).toBeUndefined();
    expect(r.answer).toMatch(/> FAILED: src\/util\.ts: FILE_DELETE: aip\.udiffx\.apply_file_changes failed: .*udiffx broke/);
    expect(r.answer).toMatch(/> FAILED: src\/n\.ts: FILE_NEW: aip\.udiffx\.apply_file_changes failed: .*udiffx broke/);
    expect(r.answer).toContain('> Files changed: 0');
  });
});
