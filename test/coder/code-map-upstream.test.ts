/**
 * Code maps as upstream pro@coder keeps them (aipack-ai/packs-pro pro/coder/code-map.aip): entries keyed by
 * absolute path (or relative to path_base_dir / rel_base) with mtime and hash, the in-progress file a stopped run
 * leaves and the next run recovers, and the code maps a prompt names in context_globs / knowledge_globs (a file
 * of the workspace or a pack's `ns@pack/code-map.json`) read by auto-context, never sent as files.
 */
import { utimesSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedAi, type ScriptedResponse } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const PROMPT_DIR = '.aipack/.prompt/pro@coder';
const MAPS = `${PROMPT_DIR}/.cache/code-map`;
const info = (summary: string) => `<FILE_INFO>{"summary": "${summary}", "when_to_use": "always", "public_functions": []}</FILE_INFO>`;

function codeMap(ws: string, agentConfig: Record<string, unknown>, answers: ScriptedResponse[]) {
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], aipackVersion: '0.8.33', ai: ScriptedAi.fromList(answers) });
  const input = { coder_params: { model: 'm' }, coder_prompt: 'x', coder_prompt_dir: nodePath.join(ws, PROMPT_DIR), agent_config: agentConfig };
  let error: unknown;
  try {
    sim.run({ name: 'pro@coder/code-map', baseDir: ws, inputs: [input] });
  } catch (e) {
    error = e;
  }
  return {
    error,
    file: (rel: string) => sim.vfs.readFile(nodePath.join(ws, rel)),
    ai: sim.trace.of('ai').map((e) => /FILE_CONTENT file_path="([^"]+)"/.exec(e.prompt)?.[1]),
    pins: sim.trace.of('pin').map((e) => ({ iden: e.iden, content: e.content })),
  };
}

describe('code-map entries, as upstream keys and shapes them', () => {
  it('a `globs` map is keyed by absolute path; each entry holds file_path, kind, summary, when_to_use, names, mtime and hash', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    const r = codeMap(ws, { globs: ['src/**/*.ts'] }, [{ content: info('A'), reusable: true }]);
    expect(r.error).toBeUndefined();
    const map = JSON.parse(r.file(`${MAPS}/code-map.json`)!);
    const abs = nodePath.join(ws, 'src/a.ts');
    expect(Object.keys(map.file_map)).toEqual([abs]);
    expect(map.file_map[abs]).toEqual({
      file_path: abs,
      kind: 'text',
      summary: 'A',
      when_to_use: 'always',
      public_functions: [],
      mtime: expect.any(Number),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // the summaries are written to the in-progress file as they come, and it is emptied once the maps are saved
    expect(r.file(`${MAPS}/.tmp-in-progress.jsonl`)).toBe('');
  });

  it('a named map with path_base_dir is keyed relative to it, and a map\'s own rel_base wins', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, 'maps/lib-code-map.json', JSON.stringify({ rel_base: '../src', file_map: {} }));
    const r = codeMap(
      ws,
      { named_maps: [{ name: 'ws', globs: ['src/*.ts'], path_base_dir: '.' }, { name: 'lib', globs: ['*.ts'], file_path: 'maps/lib-code-map.json' }] },
      [{ content: info('A'), reusable: true }],
    );
    expect(r.error).toBeUndefined();
    expect(Object.keys(JSON.parse(r.file(`${MAPS}/ws-code-map.json`)!).file_map)).toEqual(['src/a.ts']);
    const lib = JSON.parse(r.file('maps/lib-code-map.json')!);
    expect(lib.rel_base).toBe('../src'); // the document is kept whole
    expect(Object.keys(lib.file_map)).toEqual(['a.ts']);
    expect(r.ai).toEqual(['src/a.ts', 'src/a.ts']); // one call per key, as upstream
  });

  it('an entry whose mtime is not older than the file is up to date; a newer file with the same hash only gets its mtime', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    const first = codeMap(ws, { named_maps: [{ name: 'ws', globs: ['src/*.ts'], path_base_dir: '.' }] }, [{ content: info('A') }]);
    const map = JSON.parse(first.file(`${MAPS}/ws-code-map.json`)!);
    map.file_map['src/a.ts'].mtime = 1; // older than the file, same hash
    write(ws, `${MAPS}/ws-code-map.json`, JSON.stringify(map));
    const second = codeMap(ws, { named_maps: [{ name: 'ws', globs: ['src/*.ts'], path_base_dir: '.' }] }, []);
    expect(second.error).toBeUndefined();
    expect(second.ai).toEqual([]);
    expect(JSON.parse(second.file(`${MAPS}/ws-code-map.json`)!).file_map['src/a.ts'].mtime).toBeGreaterThan(1);
  });
});

describe("code-map's recovery of an interrupted run (.tmp-in-progress.jsonl)", () => {
  const line = (ws: string, key: string) =>
    JSON.stringify({
      file_path: key,
      mtime: 9e15,
      hash: 'h',
      maps_to_process_for: [`${MAPS}/ws-code-map.json`],
      maps_up_to_date_for: [],
      file_info: { kind: 'text', summary: 'Recovered', when_to_use: 'later' },
    });

  it('puts the summaries a stopped run received into their maps, pins how many, asks only for the others, and empties the file', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, 'src/b.ts', 'export const b = 1;\n');
    write(ws, `${MAPS}/.tmp-in-progress.jsonl`, `${line(ws, 'src/a.ts')}\n`);
    const r = codeMap(ws, { named_maps: [{ name: 'ws', globs: ['src/*.ts'], path_base_dir: '.' }] }, [{ content: info('B') }]);
    expect(r.error).toBeUndefined();
    expect(r.ai).toEqual(['src/b.ts']);
    const map = JSON.parse(r.file(`${MAPS}/ws-code-map.json`)!).file_map;
    expect(map['src/a.ts']).toMatchObject({ file_path: 'src/a.ts', summary: 'Recovered', mtime: 9e15, hash: 'h' });
    expect(map['src/b.ts']).toMatchObject({ summary: 'B' });
    expect(r.pins).toContainEqual({ iden: 'recovered', content: { label: '  Recovered:', content: '✅ 1 entries from previous interrupted run.' } });
    expect(r.file(`${MAPS}/.tmp-in-progress.jsonl`)).toBe('');
  });

  it('an in-progress file that is not NDJSON is emptied and fails the run, naming it', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    write(ws, `${MAPS}/.tmp-in-progress.jsonl`, '{not json\n');
    const r = codeMap(ws, { named_maps: [{ name: 'ws', globs: ['src/*.ts'], path_base_dir: '.' }] }, []);
    expect(String(r.error)).toMatch(/code-map: invalid in-progress NDJSON at '.*\.tmp-in-progress\.jsonl'.*File was reset\. Please run again\./s);
    expect(r.file(`${MAPS}/.tmp-in-progress.jsonl`)).toBe('');
  });
});

function coder(ws: string, meta: string, answers: ScriptedResponse[]) {
  write(ws, `${PROMPT_DIR}/coder-prompt.md`, `\`\`\`toml\n#!meta\n${meta}\nwrite_mode = true\n\`\`\`\nUse the helpers.\n\n====\n`);
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], aipackVersion: '0.8.33', ai: ScriptedAi.fromList(answers) });
  sim.run({ name: 'pro@coder', baseDir: ws });
  const ai = sim.trace.of('ai');
  return {
    file: (rel: string) => sim.vfs.readFile(nodePath.join(ws, rel)),
    prompt: (agent: RegExp) => ai.filter((e) => agent.test(e.agent)).map((e) => e.prompt).join('\n'),
  };
}

describe('code maps named in context_globs / knowledge_globs', () => {
  it("a pack's code map (ns@pack/code-map.json, entries through its rel_base) is offered by auto-context, and what it picks is sent", () => {
    const ws = tmpDir();
    write(ws, 'src/main.ts', 'export const main = 1;\n');
    const pack = '.aipack/pack/custom/acme/kit';
    write(ws, `${pack}/lib/util.ts`, 'export const util = 1;\n');
    write(ws, `${pack}/code-map.json`, JSON.stringify({ rel_base: 'lib', file_map: { 'util.ts': { file_path: 'util.ts', summary: 'Shared helpers', when_to_use: 'helpers' } } }));
    const picked = ['src/main.ts', `${pack}/lib/util.ts`];
    const r = coder(ws, 'context_globs = ["src/**/*.ts", "acme@kit/code-map.json"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', content: info('Main'), reusable: true },
      { agent: 'pro@coder/auto-context', content: `<needed_context_files>\n${JSON.stringify(picked)}\n</needed_context_files>` },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    const selection = r.prompt(/auto-context/);
    expect(selection).toContain(`## Explicit Code Map: ${pack}/code-map.json\n\n- ${pack}/lib/util.ts\n    - Summary: Shared helpers`);
    const sent = r.prompt(/^pro@coder$/);
    expect(sent).toContain(`<CONTEXT_FILE file_path="${pack}/lib/util.ts">`);
    expect(sent).not.toContain('code-map.json"');
    const report = r.file(`${PROMPT_DIR}/workbench-default/.cache/last_prompt_file_paths.md`)!;
    expect(report).toContain(`# Explicit Code-map Selections\n\n## Context Map: ${pack}/code-map.json\n\n- ${pack}/lib/util.ts\n`);
    expect(r.file(`${PROMPT_DIR}/.cache/auto-context/acme-kit-code-map.md`)).toBe(
      `# Context Code Map Descriptions\n\nDetected files: 1\nMapped descriptions: 1\nCode map: ${pack}/code-map.json\n\n` +
        `## Descriptions Sent to AI\n\n- ${pack}/lib/util.ts\n    - Summary: Shared helpers\n    - When To Use: helpers\n\n`,
    );
    // the workbench's data/ is empty: no data map is made (upstream maps data only when there is some)
    expect(r.file(`${PROMPT_DIR}/workbench-default/.cache/code-map/data-code-map.json`)).toBeUndefined();
  });

  it('a knowledge map alone turns knowledge on; without auto-context a map file is never sent as a file', () => {
    const ws = tmpDir();
    write(ws, 'src/main.ts', 'export const main = 1;\n');
    write(ws, 'docs/guide.md', '# Guide\n');
    write(ws, 'docs/Content-Map.JSON', JSON.stringify({ file_map: { 'docs/guide.md': { summary: 'The guide', when_to_use: 'how-to' } } }));
    const withAc = coder(ws, 'context_globs = ["src/**/*.ts"]\nknowledge_globs = ["docs/Content-Map.JSON"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', content: info('Main'), reusable: true },
      { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/main.ts"]</needed_context_files>\n<needed_knowledge_files>["docs/guide.md"]</needed_knowledge_files>' },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    expect(withAc.prompt(/auto-context/)).toContain('## Explicit Code Map: docs/Content-Map.JSON\n\n- docs/guide.md');
    expect(withAc.prompt(/^pro@coder$/)).toContain('<KNOWLEDGE_FILE file_path="docs/guide.md">');
    const plain = coder(ws, 'context_globs = ["src/**/*.ts", "docs/*"]', [{ agent: 'pro@coder', content: 'Done.' }]);
    expect(plain.prompt(/^pro@coder$/)).toContain('<CONTEXT_FILE file_path="docs/guide.md">');
    expect(plain.prompt(/^pro@coder$/)).not.toContain('Content-Map');
  });
});

describe("auto-context's description files, as upstream writes them", () => {
  it('lists the context, knowledge and workbench data descriptions with counts, the code map, oldest first, in upstream\'s line order', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    // z is older than a: it comes first (oldest first, then by path)
    const old = write(ws, 'src/z.ts', 'export const z = 1;\n');
    utimesSync(old, new Date('2020-01-01T00:00:00Z'), new Date('2020-01-01T00:00:00Z'));
    write(ws, 'docs/guide.md', '# Guide\n');
    write(ws, `${PROMPT_DIR}/workbench-default/data/screen.png`, '\x89PNG fake');
    const full = '<FILE_INFO>{"summary": "S", "when_to_use": "w", "public_types": ["T"], "public_functions": ["f", "g"]}</FILE_INFO>';
    const media = '<FILE_INFO>{"summary": "Shot", "when_to_use": "titles", "topics": ["home page", "title"]}</FILE_INFO>';
    const r = coder(ws, 'context_globs = ["src/**/*.ts"]\nknowledge_globs = ["docs/*.md"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', attachment: 'screen.png', content: media },
      { agent: 'pro@coder/code-map', content: full, reusable: true },
      {
        agent: 'pro@coder/auto-context',
        content: `<needed_context_files>["src/a.ts"]</needed_context_files>\n<needed_knowledge_files>[]</needed_knowledge_files>\n<needed_workbench_data_files>[]</needed_workbench_data_files>`,
      },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    const entry = (path: string) => `- ${path}\n    - Summary: S\n    - When To Use: w\n    - Types: T\n    - Functions: f, g\n`;
    const head = (title: string, n: number, map: string) =>
      `# ${title}\n\nDetected files: ${n}\nMapped descriptions: ${n}\nCode map: ${map}\n\n## Descriptions Sent to AI\n\n`;
    const dir = `${PROMPT_DIR}/.cache/auto-context`;
    const maps = `${PROMPT_DIR}/.cache/code-map`;
    expect(r.file(`${dir}/last_context_file_descriptions.md`)).toBe(
      `${head('Context Files Descriptions', 2, `${maps}/context-code-map.json`)}${entry('src/z.ts')}\n${entry('src/a.ts')}\n\n`,
    );
    expect(r.file(`${dir}/last_knowledge_file_descriptions.md`)).toBe(
      `${head('Knowledge Files Descriptions', 1, `${maps}/knowledge-code-map.json`)}${entry('docs/guide.md')}\n\n`,
    );
    const data = `${PROMPT_DIR}/workbench-default`;
    const shot = `- ${data}/data/screen.png\n    - Summary: Shot\n    - When To Use: titles\n    - Topics: home page, title\n`;
    expect(r.file(`${data}/.cache/auto-context/last_data_file_descriptions.md`)).toBe(
      `${head('Workbench Data Files Descriptions', 1, `${data}/.cache/code-map/data-code-map.json`)}${shot}\n\n`,
    );
    // the model is shown the same entries (an image's too: no line of ours added)
    const shown = r.prompt(/auto-context/);
    expect(shown).toContain(`${entry('src/z.ts')}\n${entry('src/a.ts')}`);
    expect(shown).toContain(shot);
  });

  it('counts the detected files from the workspace, as upstream lists them, when base_dir moves the candidates', () => {
    const ws = tmpDir();
    write(ws, 'app/src/a.ts', 'export const a = 1;\n');
    write(ws, 'app/src/b.ts', 'export const b = 1;\n');
    write(ws, 'src/only.ts', 'export const only = 1;\n');
    const r = coder(ws, 'base_dir = "app"\ncontext_globs = ["src/**/*.ts"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', content: info('A'), reusable: true },
      { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/a.ts"]</needed_context_files>' },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    const described = r.file(`${PROMPT_DIR}/.cache/auto-context/last_context_file_descriptions.md`);
    // the two candidates under app/ are described; upstream's count lists src/**/*.ts from the workspace: one file
    expect(described).toMatch(/^# Context Files Descriptions\n\nDetected files: 1\nMapped descriptions: 2\n/);
  });

  it('without knowledge globs the knowledge file says so, with no code map', () => {
    const ws = tmpDir();
    write(ws, 'src/a.ts', 'export const a = 1;\n');
    const r = coder(ws, 'context_globs = ["src/**/*.ts"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', content: info('A'), reusable: true },
      { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/a.ts"]</needed_context_files>' },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    expect(r.file(`${PROMPT_DIR}/.cache/auto-context/last_knowledge_file_descriptions.md`)).toBe(
      '# Knowledge Files Descriptions\n\nDetected files: 0\nMapped descriptions: 0\n\n## Descriptions Not Sent to AI\n\nNone\n',
    );
    // no data file in the workbench: no data descriptions
    expect(r.file(`${PROMPT_DIR}/workbench-default/.cache/auto-context/last_data_file_descriptions.md`)).toBeUndefined();
  });
});
