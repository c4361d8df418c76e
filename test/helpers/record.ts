/**
 * Run records made the way the pack makes them in AIPack: the demo workspace, copied to a temp dir with
 * `record = true` in its prompt, run on the simulator with the pack under test, and its changes written to disk
 * (the record included). `cleanDemo` is a second copy as it was before the run, to replay on.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { listRecords, readRecord, type RunRecord } from '../../src/harness/record-file.ts';

export const DEMO = fileURLToPath(new URL('../../fixtures/demo', import.meta.url)).replace(/[\\/]$/, '');
export const DEMO_AI = nodePath.join(DEMO, 'ai.toml');
export const DEMO_PROMPT = '.aipack/.prompt/pro@coder/coder-prompt.md';

/** A temp copy of the demo workspace; `record` adds `record = true` to its prompt's meta block. */
export function copyDemo(options: { record?: boolean } = {}): string {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-record-'));
  fs.cpSync(DEMO, dir, { recursive: true });
  if (options.record) {
    const prompt = nodePath.join(dir, DEMO_PROMPT);
    fs.writeFileSync(prompt, fs.readFileSync(prompt, 'utf8').replace('\nwrite_mode = true', '\nrecord = true\nwrite_mode = true'));
  }
  return dir;
}

/** Runs pro@coder on `ws` with `ai` answers and writes what it changed to disk. */
export function runAndWrite(ws: string, ai = fs.readFileSync(DEMO_AI, 'utf8')): Simulator {
  const sim = new Simulator({ workspaceDir: ws, ai: ScriptedAi.fromToml(ai, 'ai.toml'), packs: [REPO_PACK] });
  sim.run({ name: 'pro@coder' });
  sim.vfs.commit();
  return sim;
}

/** A recorded run of the demo: the workspace it ran in (changed by it) and its record. */
export function recordDemo(): { ws: string; record: RunRecord } {
  const ws = copyDemo({ record: true });
  runAndWrite(ws);
  const dirs = listRecords(ws);
  if (dirs.length !== 1) throw new Error(`expected one record in ${ws}, found ${dirs.length}`);
  return { ws, record: readRecord(dirs[0]!) };
}

/** Writes an edited copy of a record into a new folder (as a record from another machine would arrive). */
export function writeRecord(record: RunRecord, edit: (run: Record<string, unknown>, events: Record<string, unknown>[]) => void): string {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-record-edited-'));
  const run = JSON.parse(fs.readFileSync(nodePath.join(record.dir, 'run.json'), 'utf8')) as Record<string, unknown>;
  // a line is one event or a stage's list of them: edited one by one, written one a line
  const events = fs.readFileSync(nodePath.join(record.dir, 'events.ndjson'), 'utf8').split('\n').filter((l) => l.trim()).flatMap((l) => [JSON.parse(l)].flat() as Record<string, unknown>[]);
  edit(run, events);
  fs.writeFileSync(nodePath.join(dir, 'run.json'), JSON.stringify(run));
  fs.writeFileSync(nodePath.join(dir, 'events.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return dir;
}

const agent = (lua: string) => `# Output\n\n\`\`\`lua\n${lua}\n\`\`\`\n`;

/** A new workspace with a model and one source file, and its writer of files (the agents, the prompt). */
function recordingWorkspace(prefix: string): { ws: string; put: (rel: string, text: string) => void } {
  const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix));
  const put = (rel: string, text: string) => {
    fs.mkdirSync(nodePath.dirname(nodePath.join(ws, rel)), { recursive: true });
    fs.writeFileSync(nodePath.join(ws, rel), text);
  };
  put('.aipack/config.toml', '[options]\nmodel = "ws-model"\n');
  put('src/a.ts', 'export const a = 1;\n');
  return { ws, put };
}

/**
 * A workspace written in upstream's event form: `ctx.aip` on start and end (merges a param, emits
 * `plan::ready`, answers at end with the tasks it saw), `listener.aip` on `plan::ready` (adds a line to the
 * instruction), `stamp.aip` on start (an agent_result holding the time to the microsecond: nondeterministic on purpose, and not the same when a case runs it within the same second), and
 * `maxint.aip` at end (its agent_result is math.maxinteger: 2^31-1 on fengari, 2^63-1 on Lua 5.4). One task,
 * write_mode off.
 */
export function eventFormWorkspace(): string {
  const { ws, put } = recordingWorkspace('cs-record-event-');
  put('agents/ctx.aip', agent([
    'if input.event == "start" then',
    '  return { coder_params = { context_globs = { "src/**/*.ts" } }, emit_events = { "plan::ready" }, agent_result = { seen = input.event } }',
    'end',
    'return { agent_result = { tasks = #input.coder_responses } }',
  ].join('\n')));
  put('agents/listener.aip', agent('return { coder_prompt = input.coder_prompt .. "\\n\\nPlan ready." }'));
  put('agents/stamp.aip', agent('return { agent_result = { at = aip.time.now_iso_utc_micro() } }'));
  put('agents/maxint.aip', agent('return { agent_result = { max = math.maxinteger } }'));
  put('.aipack/.prompt/pro@coder/coder-prompt.md', [
    '```toml',
    '#!meta',
    'record = true',
    'write_mode = false',
    'sub_agents = [',
    '  { name = "agents/ctx.aip", on = ["start", "end"] },',
    '  { name = "agents/listener.aip", on = "plan::ready" },',
    '  { name = "agents/stamp.aip", on = "start" },',
    '  { name = "agents/maxint.aip", on = "end" },',
    ']',
    '```',
    '',
    'Explain src/a.ts',
    '',
    '====',
    '',
  ].join('\n'));
  return ws;
}

export const EVENT_FORM_AI = '[[response]]\nagent = "pro@coder"\ncontent = "It exports a."\n';

/**
 * A recording workspace whose `pre` runs `count` stage-form sub-agents (each counts itself in the params), then one
 * at post_task: a stage long enough that each input's lists of the other entries are named, not written again.
 */
export function manyAgentsWorkspace(count: number): string {
  const { ws, put } = recordingWorkspace('cs-record-many-');
  const entries: string[] = [];
  for (let i = 1; i <= count; i++) {
    put(`agents/a${i}.aip`, agent('local p = input.coder_params\np.calls = (p.calls or 0) + 1\nreturn { coder_params = p }'));
    entries.push(`  { name = "agents/a${i}.aip", stages = ["${i === count ? 'post_task' : 'pre'}"] },`);
  }
  put('.aipack/.prompt/pro@coder/coder-prompt.md', ['```toml', '#!meta', 'record = true', 'working_globs = ["src/*.ts"]', 'write_mode = false', 'sub_agents = [', ...entries, ']', '```', '', 'Explain the file.', '', '====', ''].join('\n'));
  return ws;
}

/**
 * A recording workspace whose `pre` stage list has entries of other stages between those that run: `t1.aip` (pre)
 * returns a tail (t2, t3), which replaces the stage's list; `f.aip` and `f2.aip` run at post_task only.
 */
export function tailWorkspace(): string {
  const { ws, put } = recordingWorkspace('cs-record-tail-');
  const count = 'local p = input.coder_params\np.calls = (p.calls or 0) + 1\nreturn { coder_params = p }';
  put('agents/t1.aip', agent('return { sub_agents_next = { "agents/t2.aip", "agents/t3.aip" }, agent_result = { tail = true } }'));
  for (const name of ['t2', 't3', 'f', 'f2']) put(`agents/${name}.aip`, agent(count));
  put('.aipack/.prompt/pro@coder/coder-prompt.md', ['```toml', '#!meta', 'record = true', 'working_globs = ["src/*.ts"]', 'write_mode = false', 'sub_agents = [',
    '  { name = "agents/t1.aip", stages = ["pre"] },', '  { name = "agents/f.aip", stages = ["post_task"] },', '  { name = "agents/t2.aip", stages = ["pre"] },', '  { name = "agents/f2.aip", stages = ["post_task"] },',
    ']', '```', '', 'Explain the file.', '', '====', ''].join('\n'));
  return ws;
}

/**
 * A recording workspace in the event form whose `x.aip` answers at start with `agent_on = { "end" }`, which changes
 * its entry in place after the inputs that hold it (its own, y's list of the entries after it) were given.
 */
export function agentOnWorkspace(): string {
  const { ws, put } = recordingWorkspace('cs-record-agent-on-');
  put('agents/x.aip', agent('if input.event == "start" then return { agent_on = { "end" } } end\nreturn nil'));
  put('agents/y.aip', agent('return nil'));
  put('.aipack/.prompt/pro@coder/coder-prompt.md', ['```toml', '#!meta', 'record = true', 'write_mode = false', 'sub_agents = [',
    '  { name = "agents/y.aip", on = ["start"] },', '  { name = "agents/x.aip", on = ["start"] },', '  { name = "agents/y.aip", on = ["start", "end"] },',
    ']', '```', '', 'Explain the file.', '', '====', ''].join('\n'));
  return ws;
}

/** The steps of a record as written (what inputs name left as it is), in record order. */
export function rawSteps(dir: string): Record<string, unknown>[] {
  return fs.readFileSync(nodePath.join(dir, 'events.ndjson'), 'utf8').split('\n').filter((l) => l.trim()).flatMap((l) => [JSON.parse(l)].flat() as Record<string, unknown>[]);
}
