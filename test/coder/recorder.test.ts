/**
 * The pack records a run when its meta block says `record = true` (lua/recorder.lua, docs/record.md): what each
 * stage did, as AIPack ran it, under the prompt's `.cache/records/<run id>/`. Recording never changes the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRecords, parseRecord, readRecord, type SubAgentEvent } from '../../src/harness/record-file.ts';
import { runLua } from '../helpers/lua.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { parseMocks } from '../../src/runtime/mocks.ts';
import { DEFAULT_AIPACK_VERSION } from '../../src/aip/catalog.ts';
import { agentOnWorkspace, copyDemo, DEMO_AI, EVENT_FORM_AI, eventFormWorkspace, manyAgentsWorkspace, rawSteps, recordDemo, runAndWrite, tailWorkspace } from '../helpers/record.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('a recorded run', () => {
  const { ws, record } = recordDemo();
  const calls = record.events.filter((e): e is SubAgentEvent => e.kind === 'sub_agent');

  it('says what it ran on, and holds the meta block and instruction as read', () => {
    expect(record.run.id).toMatch(UUID_V7);
    expect(record.dir).toBe(nodePath.join(ws, '.aipack/.prompt/pro@coder/.cache/records', record.run.id));
    expect(record.run).toMatchObject({
      format: 3,
      aipack_version: DEFAULT_AIPACK_VERSION,
      pack: { identity: 'pro@coder', version: JSON.parse(fs.readFileSync(nodePath.join(REPO_PACK.dir, '..', 'package.json'), 'utf8')).version },
      workspace_dir: ws,
      prompt_path: '.aipack/.prompt/pro@coder/coder-prompt.md',
    });
    const lua54 = process.env.CODER_SUBAGENTS_ENGINE === 'lua54';
    expect(record.run.lua_version).toBe(lua54 ? 'Lua 5.4' : 'Lua 5.3');
    expect(record.run.integer_bits).toBe(lua54 ? 64 : 32);
    expect(record.run.meta).toMatchObject({ record: true, write_mode: true, working_globs: ['src/**/*.ts'] });
    expect(record.run.inst).toContain('Validate the login form');
    expect(record.run.first_part).toContain('#!meta');
  });

  it("takes the pack's version from the module its build writes, not from pack.toml", () => {
    // a copy of the pack whose module says another version than its pack.toml
    const pack = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-record-pack-'));
    fs.cpSync(REPO_PACK.dir, pack, { recursive: true });
    fs.writeFileSync(nodePath.join(pack, 'lua/pack_version.lua'), 'return "9.8.7-module"\n');
    const other = copyDemo({ record: true });
    const sim = new Simulator({ workspaceDir: other, ai: ScriptedAi.fromToml(fs.readFileSync(DEMO_AI, 'utf8'), 'ai.toml'), packs: [{ ...REPO_PACK, dir: pack }] });
    sim.run({ name: 'pro@coder' });
    sim.vfs.commit();
    expect(readRecord(listRecords(other)[0]!).run.pack).toEqual({ identity: 'pro@coder', version: '9.8.7-module' });
  });

  it('has every step in the order the stages ran it', () => {
    const steps = record.events.map((e) => (e.kind === 'sub_agent' ? `${e.stage}:${e.name.replace('my-agents/', '')}` : `${e.kind}${'task_num' in e && e.task_num !== undefined ? ` ${e.task_num}` : ''}${e.kind === 'params' ? ` ${e.stage}` : ''}`));
    // the built-in auto-context is a sub-agent too; each member of a parallel group (the reviewers at post) is a
    // call of its own, in member order
    expect(steps).toEqual([
      'pre:prompt-refiner.aip', 'pre:context-from-words.aip', 'pre:instruction-clarifier.aip', 'pre:plan.aip',
      'pre:pro@coder/auto-context', 'pre:plan-check.aip', 'params pre',
      'pre_task:model-per-task.aip', 'params 1 pre_task', 'files_sent 1', 'ai 1', 'post_task:forbidden-paths-guard.aip', 'files_written 1',
      'pre_task:model-per-task.aip', 'params 2 pre_task', 'files_sent 2', 'ai 2', 'post_task:forbidden-paths-guard.aip', 'files_written 2',
      'post:run-summary.aip', 'post:review.aip', 'post:review.aip',
    ]);
  });

  it("holds each parallel-group member's call: its input (with its place in the group), its response, its duration", () => {
    const members = calls.filter((c) => c.name.endsWith('review.aip'));
    expect(members.map((m) => m.input.parallel)).toEqual([{ index: 1, size: 2 }, { index: 2, size: 2 }]);
    expect(members[0]!.input).toMatchObject({ coder_stage: 'post', agent_config: { name: 'my-agents/review.aip' } });
    expect(members[0]!.config).toEqual(members[0]!.input.agent_config);
    for (const m of members) {
      expect(m.response).toMatchObject({ agent_result: expect.anything() });
      expect(m.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('holds each sub-agent input as given and its response as returned, with its duration', () => {
    const refiner = calls[0]!;
    expect(refiner.input).toMatchObject({ coder_stage: 'pre', agent_config: { name: 'my-agents/prompt-refiner.aip' } });
    expect(refiner.input.coder_params).not.toHaveProperty('sub_agents');
    expect(refiner.response).toMatchObject({ coder_prompts: expect.any(Array) });
    expect(refiner.duration_ms).toBeGreaterThanOrEqual(0);
    const guard = calls.find((c) => c.name.endsWith('forbidden-paths-guard.aip') && c.task_num === 2)!;
    expect(guard.input).toMatchObject({ coder_stage: 'post_task', coder_task: { num: 2 } });
    expect(guard.response).toMatchObject({ coder_response: { content: expect.not.stringContaining('file_path=".env"') } });
    expect(guard.input).toMatchObject({ coder_response: { content: expect.stringContaining('file_path=".env"') } });
  });

  it('reads back, through what each input names, every input exactly as the sub-agent got it', () => {
    // empty tables cross as [] or {} depending on the conversion: compared as one
    const plain = (v: unknown): unknown =>
      Array.isArray(v) ? (v.length ? v.map(plain) : null) : v && typeof v === 'object' ? (Object.keys(v).length ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : null) : v;
    // the demo (a parallel group), a long stage, the event form (a queued dispatch), a stage whose entry list
    // a tail replaces, with entries of other stages between those that run, and an entry that agent_on changes
    const cases = [
      [copyDemo({ record: true }), undefined], [manyAgentsWorkspace(15), EVENT_FORM_AI], [eventFormWorkspace(), EVENT_FORM_AI],
      [tailWorkspace(), EVENT_FORM_AI], [agentOnWorkspace(), EVENT_FORM_AI],
    ] as const;
    for (const [ws2, ai] of cases) {
      const sim = runAndWrite(ws2, ai);
      const dir = listRecords(ws2)[0]!;
      const text = fs.readFileSync(nodePath.join(dir, 'events.ndjson'), 'utf8');
      expect(text).toMatch(/"input_refs":\{[^}]*"sub_agents_next":\[\d/);
      // a parallel group's members are run by the group runner, with their input inside its own
      const given = sim.trace.of('agent_call').filter((e) => e.caller === 'pro@coder' && (e.inputs as { group?: unknown }[])[0]?.group === undefined);
      const recorded = readRecord(dir).events.filter((e): e is SubAgentEvent => e.kind === 'sub_agent' && e.input.parallel === undefined);
      expect(recorded.length).toBeGreaterThan(3);
      expect(recorded.map((e) => plain(e.input))).toEqual(given.map((e) => plain((e.inputs as unknown[])[0])));
    }
  });

  it("names the entries to run by their positions in the dispatch's first list of them, written once, and the rest of the history", () => {
    const ws2 = tailWorkspace();
    runAndWrite(ws2, EVENT_FORM_AI);
    const steps = rawSteps(listRecords(ws2)[0]!).filter((s) => s.kind === 'sub_agent' && s.stage === 'pre');
    const names = (list: unknown) => (list as { name: string }[]).map((c) => c.name.replace('agents/', ''));
    // t1 runs first; f and f2 (post_task) do not run at pre: t1's entries to run are t2 alone
    expect(names(steps[0]!.stage_entries)).toEqual(['t2.aip']);
    expect(steps[0]!.input_refs).toEqual({ sub_agents_next: [1] });
    expect(steps[0]!.input).not.toHaveProperty('sub_agents_next');
    // t1's tail replaced the list: t2, the first input of the new one, writes its entries to run (t3)
    expect(names(steps[1]!.stage_entries)).toEqual(['t3.aip']);
    expect(steps[1]!.input_refs).toEqual({ coder_workbench: 'same', sub_agents_next: [1] });
    expect(steps[2]).not.toHaveProperty('stage_entries');
    // the history: the first item of the input before it, then the one added since
    expect(steps[2]!.input_refs).toEqual({ coder_workbench: 'same', sub_agents_prev: 1 });
    expect(names((steps[2]!.input as { sub_agents_prev: { config: unknown }[] }).sub_agents_prev.map((h) => h.config))).toEqual(['t2.aip']);
    expect(steps[2]!.input).not.toHaveProperty('coder_workbench');
  });

  it('names, in a stage of many, each entry to run by its position: the item the input was given', () => {
    const ws2 = manyAgentsWorkspace(6);
    runAndWrite(ws2, EVENT_FORM_AI);
    const steps = rawSteps(listRecords(ws2)[0]!).filter((s) => s.kind === 'sub_agent' && s.stage === 'pre');
    const names = (list: unknown) => (list as { name: string }[]).map((c) => c.name.replace('agents/', ''));
    expect(names(steps[0]!.stage_entries)).toEqual(['a2.aip', 'a3.aip', 'a4.aip', 'a5.aip']);
    expect(steps.map((s) => (s.input_refs as { sub_agents_next?: number[] } | undefined)?.sub_agents_next ?? [])).toEqual([[1, 2, 3, 4], [2, 3, 4], [3, 4], [4], []]);
  });

  it("writes a parallel group member's lists in full", () => {
    const members = rawSteps(record.dir).filter((s) => s.kind === 'sub_agent' && (s.input as { parallel?: unknown }).parallel !== undefined);
    expect(members).toHaveLength(2);
    for (const m of members) {
      expect(m.input).toHaveProperty('sub_agents_prev');
      expect(m.input).toHaveProperty('sub_agents_next');
      expect(Object.keys((m.input_refs as object | undefined) ?? {})).not.toContain('sub_agents_next');
      expect(Object.keys((m.input_refs as object | undefined) ?? {})).not.toContain('sub_agents_prev');
    }
  });

  it('writes the same record, byte for byte, for the same run', () => {
    const text = () => {
      const ws2 = tailWorkspace();
      runAndWrite(ws2, EVENT_FORM_AI);
      const dir = listRecords(ws2)[0]!;
      return fs.readFileSync(nodePath.join(dir, 'events.ndjson'), 'utf8').replaceAll(ws2, '<ws>').replace(/"duration_ms":[\d.]+/g, '"duration_ms"');
    };
    expect(text()).toBe(text());
  });

  it('holds the files sent as path, size and hash, never their content; the answers and the files written', () => {
    const sent = record.events.find((e) => e.kind === 'files_sent' && e.task_num === 1);
    expect(sent).toMatchObject({ knowledge: [{ path: 'docs/conventions.md' }], working: [{ path: 'src/auth/login.ts' }] });
    const conventions = fs.readFileSync(nodePath.join(ws, 'docs/conventions.md'), 'utf8');
    expect(sent).toMatchObject({ knowledge: [{ size: Buffer.byteLength(conventions), hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) }] });
    expect(fs.readFileSync(nodePath.join(record.dir, 'events.ndjson'), 'utf8')).not.toContain(conventions.slice(0, 40));
    expect(record.events.find((e) => e.kind === 'ai' && e.task_num === 1)).toMatchObject({ model: 'demo-model', content: expect.stringContaining('validateLoginForm') });
    expect(record.events.find((e) => e.kind === 'files_written' && e.task_num === 2)).toMatchObject({ changed: ['src/utils/format.ts'] });
  });
});

function runDemo(ws: string, mocks?: Record<string, unknown>): Simulator {
  const sim = new Simulator({ workspaceDir: ws, ai: ScriptedAi.fromToml(fs.readFileSync(DEMO_AI, 'utf8'), 'ai.toml'), packs: [REPO_PACK], ...(mocks ? { mocks: parseMocks(mocks, 'test') } : {}) });
  sim.run({ name: 'pro@coder' });
  return sim;
}
const printed = (sim: Simulator) => sim.trace.of('print').filter((e) => e.agent === 'pro@coder').map((e) => e.text);

describe("what an input names: only what is exactly what was given (the recorder's own Lua)", () => {
  const LUA_DIR = nodePath.join(REPO_PACK.dir, 'lua');
  const MODULES = Object.fromEntries(fs.readdirSync(LUA_DIR).map((f) => [`lua/${f}`, fs.readFileSync(nodePath.join(LUA_DIR, f), 'utf8')]));
  // calls recorded with the dispatch's entry list { a, b, c } (none for a group member's), then flushed; returns
  // whether the inputs hold after the flush what they were given
  const code = `
local R = require("recorder")
R.use({ id = "r", dir = "rec", events = "rec/events.ndjson" })
local a, b, c, d = { name = "a.aip" }, { name = "b.aip" }, { name = "c.aip" }, { name = "d.aip" }
-- lists built one item after the other, as the pipeline builds them (a constructor's items are set last first,
-- which fengari's tables keep as their order)
local function L(...)
  local t = {}
  for i = 1, select("#", ...) do t[i] = select(i, ...) end
  return t
end
local list = L(a, b, c)
local wb = { dir = "w" }
local h1, h2 = { config = a }, { config = b }
local odd = L(b, c)
odd.extra = true
local function call(config, workbench, prev, later, member)
  local input = { coder_stage = "pre", agent_config = config, coder_workbench = workbench, sub_agents_prev = prev, sub_agents_next = later }
  R.sub_agent(config, input, { agent_result = config.name }, nil, nil, 1, (not member) and list or nil)
  return input
end
local given = {
  call(a, wb, L(h1), L(b, c)),         -- the first: its entries to run are the stage's, at positions 1, 2
  call(a, wb, L(h1, h2), L(c)),        -- named: position 2 (b left out); the history's first item and h2
  call(b, { dir = "w" }, L(h2), L(d)), -- d is not among them; another workbench; another history
  call(b, wb, L(h2, h1), L(c, c)),     -- c twice
  call(c, wb, L(h2, h1), L(c, b)),     -- b comes before c there
  call(a, wb, L(h2, h1), odd),         -- a list that holds another key
  call(a, wb, L(h2, h1), L(b, c), true), -- a group member
}
local later = given[1].sub_agents_next
R.flush()
return { kept = given[1].sub_agents_next == later and given[2].coder_workbench == wb and given[2].sub_agents_prev[2] == h2 }`;

  it("names the same workbench, the entries to run of the dispatch's first input and a history continued; writes anything else in full", () => {
    const { value, sim } = runLua(code, { files: MODULES });
    // the inputs are as given once the flush has written them
    expect(value).toEqual({ kept: true });
    const text = sim.vfs.snapshot().get('rec/events.ndjson')!;
    const steps = text.split('\n').filter((l) => l.trim()).flatMap((l) => [JSON.parse(l)].flat() as Record<string, unknown>[]);
    expect(steps.map((s) => s.input_refs ?? null)).toEqual([
      { sub_agents_next: [1, 2] },
      { coder_workbench: 'same', sub_agents_next: [2], sub_agents_prev: 1 },
      null,
      // the workbench before it was another table
      { sub_agents_prev: 1 },
      { coder_workbench: 'same', sub_agents_prev: 2 },
      { coder_workbench: 'same', sub_agents_prev: 2 },
      { coder_workbench: 'same' },
    ]);
    expect(steps[0]!.stage_entries).toEqual([{ name: 'b.aip' }, { name: 'c.aip' }]);
    expect(steps.slice(1).some((s) => 'stage_entries' in s)).toBe(false);
    expect(steps[2]!.input).toMatchObject({ coder_workbench: { dir: 'w' }, sub_agents_prev: [{ config: { name: 'b.aip' } }], sub_agents_next: [{ name: 'd.aip' }] });
    expect(steps[3]!.input).toMatchObject({ sub_agents_next: [{ name: 'c.aip' }, { name: 'c.aip' }] });
    expect(steps[4]!.input).toMatchObject({ sub_agents_next: [{ name: 'c.aip' }, { name: 'b.aip' }] });
    expect(steps[5]!.input).toMatchObject({ sub_agents_next: { 1: { name: 'b.aip' }, 2: { name: 'c.aip' }, extra: true } });
    expect(steps[6]!.input).toMatchObject({ sub_agents_prev: [{ config: { name: 'b.aip' } }, { config: { name: 'a.aip' } }], sub_agents_next: [{ name: 'b.aip' }, { name: 'c.aip' }] });
    // read back: every input as given
    const run = { format: 3, id: 'r', workspace_dir: '/w', prompt_path: 'p.md', prompt_dir: '/w', meta: {}, inst: '', first_part: '' };
    const h1 = { config: { name: 'a.aip' } };
    const h2 = { config: { name: 'b.aip' } };
    const [a, b, c, d] = ['a.aip', 'b.aip', 'c.aip', 'd.aip'].map((name) => ({ name }));
    const wb = { dir: 'w' };
    const read = parseRecord('/r', JSON.stringify(run), text).events.map((e) => (e as SubAgentEvent).input);
    expect(read.splice(5, 1)).toEqual([{ coder_stage: 'pre', agent_config: a, coder_workbench: wb, sub_agents_prev: [h2, h1], sub_agents_next: { 1: b, 2: c, extra: true } }]);
    expect(read).toEqual([
      { coder_stage: 'pre', agent_config: a, coder_workbench: wb, sub_agents_prev: [h1], sub_agents_next: [b, c] },
      { coder_stage: 'pre', agent_config: a, coder_workbench: wb, sub_agents_prev: [h1, h2], sub_agents_next: [c] },
      { coder_stage: 'pre', agent_config: b, coder_workbench: wb, sub_agents_prev: [h2], sub_agents_next: [d] },
      { coder_stage: 'pre', agent_config: b, coder_workbench: wb, sub_agents_prev: [h2, h1], sub_agents_next: [c, c] },
      { coder_stage: 'pre', agent_config: c, coder_workbench: wb, sub_agents_prev: [h2, h1], sub_agents_next: [c, b] },
      { coder_stage: 'pre', agent_config: a, coder_workbench: wb, sub_agents_prev: [h2, h1], sub_agents_next: [b, c] },
    ]);
  });
});

describe('recording never changes the run', () => {
  it('records nothing without record = true', () => {
    const sim = runDemo(copyDemo());
    expect([...sim.vfs.snapshot().keys()].filter((k) => k.includes('.cache/records'))).toEqual([]);
  });

  it('writes the same files and answers with and without it (the record aside)', () => {
    const plain = runDemo(copyDemo());
    const recorded = runDemo(copyDemo({ record: true }));
    // a code map notes each file's mtime: the two copies' files were made at different times
    const files = (sim: Simulator) =>
      [...sim.vfs.snapshot()].filter(([k]) => !k.includes('.cache/records') && !k.endsWith('coder-prompt.md')).map(([k, v]) => [k, v?.replace(/"mtime": ?\d+/g, '"mtime"')]);
    expect(files(recorded)).toEqual(files(plain));
  });

  it('a record that cannot be started is one warning, and the run goes on', () => {
    const ws = copyDemo({ record: true });
    // a file where the records folder goes: nothing can be saved below it
    fs.mkdirSync(nodePath.join(ws, '.aipack/.prompt/pro@coder/.cache'), { recursive: true });
    fs.writeFileSync(nodePath.join(ws, '.aipack/.prompt/pro@coder/.cache/records'), 'not a folder');
    const sim = runDemo(ws);
    const warnings = printed(sim).filter((p) => p.includes('record'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^WARNING: this run is not recorded: /);
    expect(sim.vfs.snapshot().get('src/utils/format.ts')).toContain('toFixed(2)');
  });

  // a write of the record that fails: each stage appends its lines once; `when` picks which stages' appends fail
  const failingAppend = (when: string) => ({
    'aip.file.append': { lua: `local path, content = ...\nif tostring(path):find("events.ndjson", 1, true) and (${when}) then error("disk full") end` },
  });
  const stoppedWarnings = (sim: Simulator) => printed(sim).filter((p) => p.includes('record'));

  it('a record that fails part-way is one warning for the run, and the run goes on', () => {
    const sim = runDemo(copyDemo({ record: true }), failingAppend('true'));
    expect(stoppedWarnings(sim)).toEqual([expect.stringMatching(/^WARNING: recording this run stopped: .*disk full/)]);
    expect(sim.vfs.snapshot().get('src/utils/format.ts')).toContain('toFixed(2)');
  });

  it('a record whose tasks fail to write (two tasks, each in its own stages) is still one warning, said at the end', () => {
    // Before All's lines are written; every task's write fails
    const sim = runDemo(copyDemo({ record: true }), failingAppend('not tostring(content):find(\'"stage":"pre"\', 1, true)'));
    expect(stoppedWarnings(sim)).toEqual([expect.stringMatching(/^WARNING: recording this run stopped: .*disk full/)]);
    expect(sim.vfs.snapshot().get('src/utils/format.ts')).toContain('toFixed(2)');
    // said by After All: after every task's Output ended
    const at = sim.trace.events.findIndex((e) => e.kind === 'print' && e.text.includes('recording this run stopped'));
    const outputs = sim.trace.events.flatMap((e, i) => (e.kind === 'stage' && e.agent === 'pro@coder' && e.stage === 'Output' ? [i] : []));
    const lastOutput = Math.max(...outputs);
    expect(outputs).toHaveLength(2);
    expect(at).toBeGreaterThan(lastOutput);
  });

  it('cuts a value longer than the cap and says where', () => {
    const ws = copyDemo({ record: true });
    const long = 'x'.repeat(70_000);
    const prompt = nodePath.join(ws, '.aipack/.prompt/pro@coder/coder-prompt.md');
    fs.writeFileSync(prompt, fs.readFileSync(prompt, 'utf8').replace('====', `${long}\n\n====`));
    const sim = runDemo(ws);
    sim.vfs.commit();
    const rec = readRecord(listRecords(ws)[0]!);
    expect(rec.run.inst.length).toBeLessThan(70_000);
    expect(rec.run.inst).toMatch(/\[record: cut \d+ bytes\]$/);
    expect(rec.run.cut).toEqual(expect.arrayContaining(['$.inst']));
    const refiner = rec.events[0] as SubAgentEvent;
    expect(refiner.cut).toEqual(expect.arrayContaining([expect.stringMatching(/^\$\.input\.coder_prompt/)]));
  });
});
