import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRIVER_AIP, DRIVER_FILE } from '../../src/harness/driver.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';

const WS = '/home/user/project';
const PROMPT_DIR = `${WS}/.aipack/.prompt/pro@coder`;
const agent = (lua: string) => `# Output\n\n\`\`\`lua\n${lua}\n\`\`\`\n`;

/** Runs the driver agent (inside the coder pack) with one input, over a workspace of `files`. */
function drive(input: Record<string, unknown>, files: Record<string, string> = {}, options: { aipackVersion?: string; flowRedoBase?: number } = {}) {
  const all: Record<string, string> = { [nodePath.join(REPO_PACK.dir, DRIVER_FILE)]: DRIVER_AIP };
  for (const [rel, text] of Object.entries(files)) all[`${WS}/${rel}`] = text;
  const sim = new Simulator({
    workspaceDir: WS,
    vfs: createOverlayVfs(WS, { files: all, readOnlyRoots: [REPO_PACK.dir], diskless: ['/home/user'] }),
    packs: [REPO_PACK],
    ai: ScriptedAi.fromList([]),
    readRoots: ['/home/user'],
    ...options,
  });
  const out = sim.run({ name: 'pro@coder/__contract_driver__', inputs: [{ prompt_dir: PROMPT_DIR, prompts: ['Fix it'], params: {}, ...input }] }).outputs?.[0];
  return { out: out as Record<string, unknown>, sim };
}

describe('the contract driver runs a stage through the pack\'s own stage code', () => {
  it('pre: Before All\'s pre run over the entries (the glob lists filled in, the instruction from the prompts)', () => {
    const { out } = drive({
      stage: 'pre',
      params: { model: 'flash' },
      entries: [{ name: 'a.aip', stages: ['pre'] }],
    }, { 'a.aip': agent('local p = input.coder_params\np.write_mode = true\nreturn { coder_params = p, coder_prompts = { input.coder_prompt, "More" } }') });
    expect(out).toMatchObject({ ok: true, params: { model: 'flash', write_mode: true }, prompts: ['Fix it', 'More'] });
    expect(Object.keys(out.params as object).sort()).toEqual(['context_globs', 'knowledge_globs', 'model', 'structure_globs', 'write_mode']);
  });

  it('pre: an event other than start is the root of the dispatch (as upstream dispatches an emitted one)', () => {
    const { out } = drive({
      stage: 'pre',
      event: 'ctx::ready',
      entries: [{ name: 'a.aip', on: ['ctx::ready'] }, { name: 'b.aip', on: ['start'] }],
    }, { 'a.aip': agent('return { coder_prompt = input.event }'), 'b.aip': agent('return { coder_prompt = "b ran" }') });
    expect(out).toMatchObject({ ok: true, prompts: ['ctx::ready'] });
  });

  it('a later stage begins from the case\'s params: nothing runs at pre, the entries are kept as Before All normalises them', () => {
    const { out, sim } = drive({
      stage: 'post',
      event: 'end',
      params: { model: 'flash' },
      entries: [{ name: 'a.aip', on: ['start', 'end'] }],
      responses: [{ task_num: 1, content: 'Done.', files_changed: [], files_failed: [] }],
    }, { 'a.aip': agent('aip.file.save("seen.txt", input.event)\nreturn nil') });
    expect(out).toMatchObject({ ok: true, params: { model: 'flash' }, redo: { requested: false, started: false } });
    expect(sim.vfs.readFile(`${WS}/seen.txt`)).toBe('end');
    expect(sim.trace.of('agent_call').filter((e) => e.agent === 'a.aip')).toHaveLength(1);
  });

  it('post: a coder_redo is started under the cap and refused at it, by the pack\'s After All decision', () => {
    const redo = (count: number) =>
      drive(
        { stage: 'post', event: 'end', entries: [{ name: 'r.aip', on: ['end'] }], responses: [] },
        { 'r.aip': agent('return { coder_redo = true }') },
        { aipackVersion: '0.8.33', flowRedoBase: count },
      );
    expect(redo(19).out.redo).toEqual({ requested: true, started: true });
    const capped = redo(20);
    expect(capped.out.redo).toEqual({ requested: true, started: false });
    expect(capped.sim.trace.of('pin').map((p) => p.iden)).toContain('coder_redo_cap_reached');
  });

  it('post_task: the text the coder applies, after the sub-agent replaced it', () => {
    const { out } = drive({
      stage: 'post_task',
      task: { num: 1, count: 1, working_files: [] },
      response: { content: 'old', model_name: 'm', usage: { prompt_tokens: 0, completion_tokens: 0 } },
      entries: [{ name: 'c.aip', stages: ['post_task'] }],
    }, { 'c.aip': agent('return { coder_response = { content = input.coder_response.content .. " (checked)" } }') });
    expect(out).toMatchObject({ ok: true, response: 'old (checked)' });
  });

  it('a failure is { ok = false, error }: a bad entry, a failed sub-agent', () => {
    expect(drive({ stage: 'pre', entries: [{ name: 'x.aip', stages: ['during'] }] }).out).toMatchObject({ ok: false, error: expect.stringMatching(/sub_agents\[1\]/) });
    const failed = drive({ stage: 'pre_task', task: { num: 1, count: 1, working_files: [] }, entries: [{ name: 'f.aip', stages: ['pre_task'] }] }, { 'f.aip': agent('return { success = false, error_msg = "no" }') });
    expect(failed.out).toMatchObject({ ok: false, error: 'Sub-agent [f.aip] failed: no' });
  });
});
