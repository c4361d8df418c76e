/**
 * The code-map fixture (fixtures/code-map), a self-written equivalent of upstream pro@coder's code-map agent:
 * its contract cases, and three runs over one workspace (first run, nothing changed, one file changed) on both
 * engines, which must agree byte for byte. Hash, cache and model calls are all simulated: nothing is random.
 */
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEngine, type EngineName } from '../../src/engine/index.ts';
import { runContractFile } from '../../src/harness/run-case.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_ROOT } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import type { Vfs } from '../../src/support/vfs.ts';

const AGENT = nodePath.join(REPO_ROOT, 'fixtures', 'code-map', 'code-map.aip');
const WS = '/virtual/code-map-ws';
const CACHE = '.aipack/.prompt/pro@coder/.cache/code-map/code-map-by-hash.json';

const answer = (summary: string) => `<FILE_INFO>{"summary": "${summary}", "when_to_use": "always"}</FILE_INFO>`;
const AI = [
  { match: 'file_path="src/a\\.ts"', content: answer('A module'), reusable: true },
  { match: 'file_path="src/b\\.ts"', content: answer('B module'), reusable: true },
];

/** The sub-agent input pro@coder gives at `pre`. */
const input = {
  coder_params: { model: 'coder-model' },
  coder_prompts: ['Refactor'],
  coder_prompt: 'Refactor',
  coder_prompt_dir: `${WS}/.aipack/.prompt/pro@coder`,
  agent_config: { name: 'code-map.aip', stages: ['pre'] },
  sub_agents_prev: [],
  sub_agents_next: [],
  stage: 'pre',
  event: 'pre',
};

function runOnce(vfs: Vfs, engine: EngineName, given: Record<string, unknown> = input) {
  const sim = new Simulator({ workspaceDir: WS, vfs, engine, readRoots: [nodePath.dirname(AGENT)], ai: ScriptedAi.fromList(AI) });
  const outcome = sim.run({ name: AGENT, baseDir: WS, inputs: [given] });
  const aiCalls = sim.trace.events.flatMap((e) => (e.kind === 'ai' ? [{ model: e.model, file: /file_path="([^"]+)"/.exec(e.prompt)?.[1] }] : []));
  return { result: outcome.afterAll, aiCalls, cache: vfs.readFile(`${WS}/${CACHE}`) };
}

/** Three runs over one workspace: fresh, unchanged, then src/b.ts edited. */
function threeRuns(engine: EngineName) {
  const vfs = createOverlayVfs(WS, { files: { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n' } });
  const first = runOnce(vfs, engine);
  const second = runOnce(vfs, engine);
  vfs.writeFile(`${WS}/src/b.ts`, 'export const b = 3;\n');
  const third = runOnce(vfs, engine);
  return { first, second, third };
}

describe('fixtures/code-map', () => {
  it('passes its contract cases', () => {
    const r = runContractFile(nodePath.join(REPO_ROOT, 'fixtures', 'code-map', 'code-map.contract.toml'));
    expect(r.cases.map((c) => [c.name, c.status, c.message ?? ''])).toEqual(r.cases.map((c) => [c.name, 'passed', '']));
    expect(r.cases.length).toBe(6);
  });

  it('asks the model once per new or changed file content, and never for an unchanged one', () => {
    const { first, second, third } = threeRuns('fengari');
    expect(first.aiCalls).toEqual([
      { model: 'coder-model', file: 'src/a.ts' },
      { model: 'coder-model', file: 'src/b.ts' },
    ]);
    expect(first.result).toEqual({ agent_result: { cache_path: CACHE, updated: ['src/a.ts', 'src/b.ts'], unchanged: {}, reused: {}, removed: {} } });
    const cache = JSON.parse(first.cache ?? 'null');
    expect(Object.keys(cache.files)).toEqual(['src/a.ts', 'src/b.ts']);
    expect(cache.files['src/a.ts'].hash).toMatch(/^[0-9a-f]{64}$/);

    expect(second.aiCalls).toEqual([]);
    expect(second.result).toEqual({ agent_result: { cache_path: CACHE, updated: {}, unchanged: ['src/a.ts', 'src/b.ts'], reused: {}, removed: {} } });
    expect(second.cache).toBe(first.cache);

    expect(third.aiCalls).toEqual([{ model: 'coder-model', file: 'src/b.ts' }]);
    const after = JSON.parse(third.cache ?? 'null');
    expect(after.files['src/a.ts']).toEqual(cache.files['src/a.ts']);
    expect(after.files['src/b.ts'].hash).not.toBe(cache.files['src/b.ts'].hash);
  });

  it('also takes upstream pro@coder\'s input: a relative prompt dir and the instruction as one coder_prompt', () => {
    const vfs = createOverlayVfs(WS, { files: { 'src/a.ts': 'export const a = 1;\n' } });
    const upstream = {
      coder_params: { model: 'coder-model' },
      coder_prompt: 'Refactor',
      coder_prompt_dir: '.aipack/.prompt/pro@coder',
      agent_config: { name: 'my-agents/code-map.aip', enabled: true, on: ['start'], add_to_prompt: true },
      coder_redo_count: 0,
      event: 'start',
      stage: 'pre',
    };
    const { result, cache } = runOnce(vfs, 'fengari', upstream);
    expect(result).toMatchObject({ coder_prompt: 'Refactor\n\nCode map (one line per file):\n- src/a.ts: A module', agent_result: { cache_path: CACHE } });
    expect(cache).toContain('"summary": "A module"');
  });

  it('gives the same results, calls and cache bytes on fengari and lua54', async () => {
    await loadEngine('lua54');
    await loadEngine('fengari');
    expect(threeRuns('lua54')).toEqual(threeRuns('fengari'));
  });
});
