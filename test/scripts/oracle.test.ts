import { existsSync, readdirSync, statSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS script without types
import * as oracle from '../../scripts/oracle.mjs';

interface Diff {
  area: string;
  path: string;
  up: unknown;
  ours: unknown;
}
interface Observation {
  exitCode: number;
  files: Record<string, string>;
  prompt?: string;
  calls: { agent: string; input: Record<string, unknown>; output: unknown; error: unknown }[];
  ai: { agent: string; model: string; files: string[] }[];
}
interface Scenario {
  name: string;
  dir: string;
  prompt: string;
  aipackVersion: string;
  documented?: string;
}
interface Row {
  scenario: Scenario;
  engine: string;
  result: { status: string; known: string[]; diffs: Diff[] };
}
const o = oracle as {
  compare(up: Observation, ours: Observation): Diff[];
  classify(diffs: Diff[], scenario: Partial<Scenario>): { status: string; known: string[]; diffs: Diff[] };
  answersView(text: string): string;
  promptView(text: string): string;
  codeMapView(text: string, workspace: string): string;
  filesSent(prompt: string): string[];
  loadScenario(dir: string): Scenario;
  describeDiff(d: Diff): string;
  runOracle(opts: { upstream: string; scenariosDir: string; engines: string[] }): Row[];
  formatTable(rows: Row[], engines: string[]): string;
};

const SCENARIOS = nodePath.resolve('fixtures/oracle');
const obs = (over: Partial<Observation> = {}): Observation => ({ exitCode: 0, files: {}, prompt: 'p\n====\nanswer\n', calls: [], ai: [], ...over });
const call = (input: Record<string, unknown>, output: unknown = null) => ({ agent: 'my-agents/a.aip', input, output, error: null });

describe('the oracle compares what a user sees', () => {
  it("compares code maps without each entry's mtime, the copy's workspace folder named <workspace>", () => {
    const map = (mtime: number, ws: string) => JSON.stringify({ file_map: { [`${ws}/src/a.ts`]: { file_path: `${ws}/src/a.ts`, hash: 'h', mtime } } });
    expect(o.codeMapView(map(1, '/tmp/oracle-a-1'), '/tmp/oracle-a-1')).toBe(o.codeMapView(map(2, '/tmp/oracle-a-2'), '/tmp/oracle-a-2'));
    expect(JSON.parse(o.codeMapView(map(1, '/tmp/w'), '/tmp/w')).file_map).toEqual({ '<workspace>/src/a.ts': { file_path: '<workspace>/src/a.ts', hash: 'h' } });
    // another summary is a difference
    expect(o.codeMapView(map(1, '/w').replace('"h"', '"g"'), '/w')).not.toBe(o.codeMapView(map(1, '/w'), '/w'));
    expect(o.codeMapView('not json', '/w')).toBe('not json');
  });

  it('agrees on equal runs, an empty list and an empty table being one Lua table', () => {
    const up = obs({ calls: [call({ coder_context_file_refs: [], event: 'end' })] });
    const ours = obs({ calls: [call({ coder_context_file_refs: {}, event: 'end' })] });
    expect(o.classify(o.compare(up, ours), {})).toMatchObject({ status: 'agree', known: [], diffs: [] });
  });

  it('names an input field upstream gives and this pack leaves out, at its path', () => {
    const up = obs({ calls: [call({ coder_responses: [{ files_changes_failed: [], content_extruded: 'a\n' }] })] });
    const ours = obs({ calls: [call({ coder_responses: [{ content_extruded: 'a' }] })] });
    expect(o.compare(up, ours).map(o.describeDiff)).toEqual([
      'sub-agent call 1 (my-agents/a.aip) input.coder_responses[0].files_changes_failed: upstream [], ours absent',
      'sub-agent call 1 (my-agents/a.aip) input.coder_responses[0].content_extruded: upstream "a\\n", ours "a"',
    ]);
  });

  it("takes this pack's own extra fields as a superset and leaves the file times out", () => {
    const up = obs({ calls: [call({ event: 'end', coder_responses: [{ x: 1 }], refs: [{ path: 'a', mtime: 1 }] })] });
    const ours = obs({
      calls: [call({ event: 'end', coder_stage: 'post', coder_prompts: ['p'], coder_responses: [{ x: 1, task_num: 1, files_changed: [] }], refs: [{ path: 'a', mtime: 2 }] })],
    });
    expect(o.compare(up, ours)).toEqual([]);
    // the same key elsewhere is a difference
    const extra = obs({ calls: [call({ event: 'end', coder_responses: [{ x: 1 }], refs: [{ path: 'a', mtime: 1 }], task_num: 1 })] });
    expect(o.compare(up, extra).map(o.describeDiff)).toEqual(['sub-agent call 1 (my-agents/a.aip) input.task_num: upstream absent, ours 1']);
  });

  it('compares files, the exit code with its error, a missing call and the model calls', () => {
    const up = obs({ files: { 'src/a.ts': 'new\n' }, calls: [call({})], ai: [{ agent: 'pro@coder', model: 'm', files: ['CONTEXT_FILE src/a.ts'] }] });
    const ours = { ...obs({ exitCode: 1, files: { 'src/a.ts': 'old\n' }, ai: [{ agent: 'pro@coder', model: 'm', files: [] }] }), error: 'Sub-agent [x] failed' };
    expect(o.compare(up, ours).map(o.describeDiff)).toEqual([
      'exit code: upstream 0, ours "1 (Sub-agent [x] failed)"',
      'files src/a.ts: upstream "new\\n", ours "old\\n"',
      'sub-agent call 1 (my-agents/a.aip): upstream "my-agents/a.aip", ours absent',
      'ai calls ai[0].files[0]: upstream "CONTEXT_FILE src/a.ts", ours absent',
    ]);
  });

  it("lists only the pack's own prose as known (both packs write the file), a documented scenario's differences as documented", () => {
    const prose = { area: 'files', path: 'prompt/workbench-default/.cache/_chat-rules.md', up: 'their words', ours: 'our words' };
    const readme = { area: 'files', path: 'prompt/README.md', up: 'theirs', ours: 'ours' };
    expect(o.classify([prose, readme], {})).toMatchObject({ status: 'known', known: ['own prose'], diffs: [] });
    // a file one pack does not write, a report and a workbench input are differences
    const missing = { area: 'files', path: 'prompt/README.md', up: 'theirs', ours: undefined };
    const report = { area: 'files', path: 'prompt/workbench-default/.cache/last_prompt_file_paths.md', up: 'x', ours: 'y' };
    const input = { area: 'sub-agent', path: 'call 1 (a) input.coder_workbench', up: {}, ours: undefined };
    expect(o.classify([missing, report, input], {})).toMatchObject({ status: 'differs', diffs: [missing, report, input] });
    const other = { area: 'exit code', path: '', up: 0, ours: 1 };
    expect(o.classify([prose, other], {})).toMatchObject({ status: 'differs', known: ['own prose'], diffs: [other] });
    expect(o.classify([other], { documented: 'on purpose' })).toMatchObject({ status: 'documented', diffs: [other] });
  });

  it('compares the answers reports as the prompt file, without the info lines, and nothing else of them', () => {
    const file = 'prompt/workbench-default/.cache/last_ai_responses_for_raw.md';
    const up = obs({ files: { [file]: '====\n>   Info: Duration: 0ms\n>  Model: m\n\nDone.\n\n' } });
    const ours = obs({ files: { [file]: '====\n> Task 1/1 | Model: m\n\nDone.\n\n' } });
    expect(o.compare(up, ours)).toEqual([]);
    const other = obs({ files: { [file]: '====\n> Task 1/1 | Model: m\n\nDone!\n\n' } });
    expect(o.compare(up, other).map((d) => d.path)).toEqual([file]);
  });

  it("compares the prompt file's answers without the info lines each pack writes in its own words", () => {
    const up = 'inst\n\n====\n>   Info: Duration: 0ms\n>  Model: m\n\nDone.\n\n\n';
    const ours = 'inst\n\n====\n> Task 1/1 | Model: m\n\nDone.\n';
    expect(o.promptView(up)).toBe(o.promptView(ours));
    expect(o.promptView('inst\n\n====\n> a\n\nDone!\n')).not.toBe(o.promptView(ours));
  });

  it('reads the files a model call was sent from its prompt, not the format examples', () => {
    const prompt = '<FILE_PATCH file_path="path/to/file">\n<KNOWLEDGE_FILE file_path="docs/c.md">\n<WORKING_FILE file_path="src/a.ts">\n[attachment: p/m.png (the layout)]';
    expect(o.filesSent(prompt)).toEqual(['KNOWLEDGE_FILE docs/c.md', 'WORKING_FILE src/a.ts', 'attachment p/m.png']);
  });
});

describe('the scenarios folder', () => {
  const names = readdirSync(SCENARIOS).filter((n) => statSync(nodePath.join(SCENARIOS, n)).isDirectory());

  it('covers the event form, emit chains, agent_on, redo, auto-fix, failed patches and the lax cases', () => {
    for (const n of ['event-start-end', 'emit-chain', 'agent-on', 'redo', 'auto-fix', 'auto-fix-multi-task', 'failed-patch', 'lax-on-lists', 'lax-emit-string', 'lax-end-params', 'end-error', 'plain-string']) {
      expect(names).toContain(n);
    }
  });

  it.each(names)('%s: has its scripted answers and its prompt file, and only known keys', (name) => {
    const s = o.loadScenario(nodePath.join(SCENARIOS, name));
    expect(existsSync(nodePath.join(s.dir, s.prompt, 'coder-prompt.md'))).toBe(true);
  });
});

const UPSTREAM = process.env.CODER_SUBAGENTS_UPSTREAM;

describe.skipIf(!UPSTREAM)('every scenario against upstream pro@coder (skipped: set CODER_SUBAGENTS_UPSTREAM to a checkout of pro/coder)', () => {
  it(
    "agrees on both engines, except the pack's own prose and the documented choices",
    () => {
      const engines = ['fengari', 'lua54'];
      const rows = o.runOracle({ upstream: nodePath.resolve(UPSTREAM!), scenariosDir: SCENARIOS, engines });
      const differing = rows.filter((r) => r.result.status === 'differs' || r.result.status === 'error');
      expect(differing.map((r) => `${r.scenario.name} [${r.engine}]: ${r.result.diffs.map(o.describeDiff).join('\n  ')}`), o.formatTable(rows, engines)).toEqual([]);
    },
    30 * 60_000,
  );
});
