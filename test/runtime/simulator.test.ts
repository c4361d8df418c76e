import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { AgentRunError, Simulator, type SimulatorOptions } from '../../src/runtime/simulator.ts';
import { runLua } from '../helpers/lua.ts';
import { ENGINE_NAME } from '../helpers/engine.ts';

const WS = fileURLToPath(new URL('../../fixtures/runtime', import.meta.url));
const AGENTS = nodePath.join(WS, 'agents');

function sim(extra: Partial<SimulatorOptions> = {}) {
  return new Simulator({ workspaceDir: WS, ...extra });
}

function runFixture(name: string, extra: Partial<SimulatorOptions> = {}) {
  const s = sim(extra);
  return { s, outcome: s.run({ name, baseDir: AGENTS }) };
}

function failure(fn: () => unknown): AgentRunError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AgentRunError) return err;
    throw err;
  }
  throw new Error('expected the run to fail');
}

describe('agent lifecycle (docs/aipack.md section 2-3)', () => {
  it('runs Before All, Data, prompt, AI, Output and After All, with a Data skip and a nil output as null', () => {
    const ai = ScriptedAi.fromList([{ match: 'Echo: Hello one', content: 'one echoed' }, { match: 'Echo: Hello nil-out', content: 'ignored' }]);
    const { s, outcome } = runFixture('lifecycle', { ai });
    expect(outcome.outputs).toEqual([{ input: 'one', answer: 'one echoed', task: 1, stage: 'Output' }, null, null]);
    expect(outcome.afterAll).toEqual({ n: 3, skipped_is_null: true, nil_output_is_null: true, first: 'one echoed', inputs_n: 3 });
    // the skipped task made no AI call
    expect(s.trace.of('ai').map((e) => e.task)).toEqual([1, 3]);
    expect(s.trace.of('stage').map((e) => `${e.stage}${e.task ?? ''}`)).toEqual(['BeforeAll', 'Data1', 'Output1', 'Data2', 'Data3', 'Output3', 'AfterAll']);
  });

  it('a Before All skip runs no task and no After All, and reports the reason', () => {
    const { outcome } = runFixture('skip-all');
    expect(outcome).toEqual({ outputs: undefined, afterAll: undefined, redoRequested: false, redos: 0, skipped: 'nothing to do' });
  });

  it('rejects extra keys in before_all_response and data_response with AIPack wording', () => {
    expect(failure(() => runFixture('flow-extra-key')).message).toBe(
      "aip.flow.before_all_response(arg) - 'arg' can only have `.inputs`, `.options`, `.before_all`). But also contained: extra",
    );
    expect(failure(() => runFixture('data-extra-key')).message).toContain("But also contained: nope");
  });

  it('runs exactly one task with a nil input when task stages exist and there are no inputs', () => {
    const { outcome } = runFixture('nil-input');
    expect(outcome.outputs).toEqual([{ input_is_nil: true, task: 1 }]);
    expect(outcome.afterAll).toEqual({ n: 1, first_input_is_null: true });
  });

  it('runs no task for an agent with only After All and no inputs', () => {
    const { outcome } = runFixture('no-task-stages');
    expect(outcome.outputs).toBeUndefined();
    expect(outcome.afterAll).toEqual({ inputs_is_nil: true, outputs_is_nil: true });
  });

  it('keeps outputs in input order with input_concurrency > 1', () => {
    expect(runFixture('concurrency').outcome.outputs).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('converts an empty table returned by a stage to {} and aip.json.stringify({}) to "[]"', () => {
    const s = sim();
    const outcome = s.run({ name: 'empty-tables', baseDir: AGENTS, inputs: [{ e: [], o: {} }] });
    expect(outcome.outputs?.[0]).toEqual({ returned_empty: {}, json_of_empty: '[]', list: [1, 2], echoed: { e: [], o: {} } });
  });

  it('fills CTX for the stage', () => {
    const { outcome } = runFixture('ctx', { aipackVersion: '0.8.20' });
    expect(outcome.afterAll).toMatchObject({
      version: '0.8.20',
      agent_name: 'ctx',
      file_name: 'ctx.aip',
      stem: 'ctx',
      stage: 'AfterAll',
      workspace: WS,
      has_run_uid: true,
    });
  });
});

describe('aip.agent.run (docs/aipack.md section 4)', () => {
  const res = () => runFixture('caller').outcome.afterAll as Record<string, unknown>;

  it('prepends input to inputs and resolves names without .aip, dir/main.aip and pack refs', () => {
    const r = res();
    expect(r.prepend).toEqual(['first', 'second', 'third']);
    expect(r.no_ext).toBe('x');
    expect(r.dir_main).toBe('nested/main.aip ran with 7');
    expect(r.pack_ref).toEqual({ hello: 'p', sub_path: 'sub/hello', ref: 'demo@tools/sub/hello' });
    expect(r.pack_main).toEqual({ identity: 'demo@tools', ref: 'demo@tools', shared: 'demo@tools lua/shared_util.lua' });
  });

  it('returns outputs with nil holes where the sub-agent produced nil', () => {
    const r = res();
    expect([r.holes_1, r.holes_2_is_nil, r.holes_3]).toEqual(['a', true, 'c']);
    // redo_requested exists since 0.8.17; the default simulated version is the newest
    expect(r.redo).toBe(false);
  });

  it('raises not-found and run failures as Lua errors with AIPack wording', () => {
    const r = res();
    expect(r.missing).toMatch(/^Failed to find agent 'does-not-exist': No agent found for local path: 'does-not-exist'\n {3}\(full path: .*agents\/does-not-exist\)$/);
    expect(r.fails).toMatch(/^Failed to run agent 'fails': Lua error:\n.*fails\.aip:5: attempt to index a nil value \(local 't'\)$/);
  });

  it('ignores the input option before AIPack 0.8.15, where it did not exist', () => {
    const r = runFixture('caller', { aipackVersion: '0.8.14' }).outcome.afterAll as Record<string, unknown>;
    expect(r.prepend).toEqual(['second', 'third']);
  });

  it('an agent the run rewrites, removes or creates is run as it is now, within the same run', () => {
    const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'sim-rewrite-'));
    try {
      mkdirSync(nodePath.join(ws, '.aipack'));
      const agent = (name: string, code: string) => `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`;
      writeFileSync(nodePath.join(ws, 'leaf.aip'), agent('leaf', 'return "disk"'));
      writeFileSync(nodePath.join(ws, 'gone.aip'), agent('gone', 'return "gone"'));
      writeFileSync(
        nodePath.join(ws, 'main.aip'),
        agent(
          'main',
          [
            'local out = { aip.agent.run("leaf").after_all }',
            `aip.file.save("leaf.aip", ${JSON.stringify(agent('leaf', 'return "saved"'))})`,
            'out[#out + 1] = aip.agent.run("leaf").after_all',
            'out[#out + 1] = aip.agent.run("gone").after_all',
            'aip.file.delete("gone.aip")',
            'out[#out + 1] = tostring(select(2, pcall(aip.agent.run, "gone"))):match("No agent found") and "not found" or "found"',
            'aip.file.save("new.aip", "# After All\\n\\n```lua\\nreturn \\"new\\"\\n```\\n")',
            'out[#out + 1] = aip.agent.run("new").after_all',
            'return out',
          ].join('\n'),
        ),
      );
      const outcome = new Simulator({ workspaceDir: ws, aipackVersion: '0.8.15' }).run({ name: 'main', baseDir: ws });
      expect(outcome.afterAll).toEqual(['disk', 'saved', 'gone', 'not found', 'new']);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('keeps only the trace kinds it is given (the CLI asks for the file events alone without --trace)', () => {
    const kinds = (extra: Partial<SimulatorOptions>) => new Set(runFixture('caller', extra).s.trace.events.map((e) => e.kind));
    expect(kinds({})).toContain('agent_call');
    expect([...kinds({ traceKinds: ['agent_start', 'print'] })].sort()).toEqual(['agent_start']);
  });

  it('stops nesting deeper than 8 with the chain of agent names', () => {
    const err = failure(() => runFixture('recurse'));
    expect(err.message).toContain('aip.agent.run nested deeper than 8 levels: recurse -> recurse -> recurse -> recurse -> recurse -> recurse -> recurse -> recurse -> recurse');
  });
});

describe('sandbox and errors', () => {
  it('opens no escape hatch: no os.execute/getenv, io.open, package.loadlib, debug, binary chunks, no reads or loads outside', () => {
    expect(runFixture('sandbox').outcome.afterAll).toEqual({
      os_execute: 'nil',
      os_getenv: 'nil',
      io_open: 'nil',
      loadlib: 'package.loadlib is disabled in safe mode',
      debug: 'nil',
      dofile_outside: 'cannot open /etc/hostname: outside the workspace',
      read_outside: `Read protection (simulator) - The path \`/etc/hostname\` is outside the workspace \`${WS}\` and the packs (symlinks resolved); a simulated run does not read it`,
      exists_outside: false,
      os_time: 'function',
      binary_chunk_refused: true,
    });
  });

  it('requires modules from <agent dir>/lua, in the global environment, with a clear miss message', () => {
    const r = runFixture('requires').outcome.afterAll as Record<string, string>;
    expect(r.helper).toBe('agents/lua/helper.lua, sees aip: true, sees inputs: false');
    expect(r.missing).toContain("module 'no_such_module' not found");
    expect(r.missing).toContain('agents/lua/no_such_module.lua');
  });

  it('stops runaway Lua with the budget message even when pcall tries to swallow it', () => {
    const err = failure(() => runFixture('runaway', { budget: 200_000 }));
    expect(err.message).toContain('instruction budget exceeded in runaway BeforeAll');
    expect(err.stage).toBe('BeforeAll');
  });

  it('reports a syntax error with the .aip file and line', () => {
    const err = failure(() => runFixture('syntax-error'));
    expect(err.message).toMatch(/syntax-error\.aip:8: unexpected symbol near '='/);
  });

  it('raises "aip.X.y is not simulated" for AIPack functions the simulator lacks, and hides newer ones', () => {
    expect(runFixture('not-simulated', { aipackVersion: '0.8.15' }).outcome.afterAll).toEqual({ err: 'aip.pdf.page_count is not simulated', redo_run_exists: false });
    expect(runFixture('not-simulated', { aipackVersion: '0.8.22' }).outcome.afterAll).toMatchObject({ redo_run_exists: true });
  });

  it('fails an AI call with no scripted response, showing the prompt', () => {
    const err = failure(() => runFixture('lifecycle'));
    expect(err.message).toContain('no scripted AI response for lifecycle');
    expect(err.message).toContain('Echo: Hello one');
  });
});

describe('workspace isolation', () => {
  const tmp: string[] = [];
  afterEach(() => {
    for (const d of tmp.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps writes in the overlay, reports them, refuses paths outside, and writes only on commit', () => {
    const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'sim-ws-'));
    tmp.push(ws);
    mkdirSync(nodePath.join(ws, '.aipack'));
    writeFileSync(nodePath.join(ws, 'writes.aip'), readFileSync(nodePath.join(AGENTS, 'writes.aip')));
    const s = new Simulator({ workspaceDir: ws });
    const outcome = s.run({ name: 'writes', baseDir: ws });
    expect((outcome.afterAll as { protected: string }).protected).toMatch(/^Save file protection - The path `\.\.\/outside\.txt` does not belong to the workspace dir/);
    expect(s.vfs.changes()).toEqual({ created: ['out/new.txt'], changed: [], deleted: [] });
    expect(existsSync(nodePath.join(ws, 'out/new.txt'))).toBe(false);
    expect(existsSync(nodePath.join(ws, '..', 'outside.txt'))).toBe(false);
    s.vfs.commit();
    expect(readFileSync(nodePath.join(ws, 'out/new.txt'), 'utf8')).toBe('created by writes.aip\n');
    expect(s.trace.of('file').map((e) => `${e.op} ${e.path}`)).toEqual(['write out/new.txt']);
  });
});

describe('a workspace kept off the disk', () => {
  it('reads what its Vfs holds there, whatever the disk has at that path (a link leading out)', () => {
    const root = mkdtempSync(nodePath.join(os.tmpdir(), 'sim-off-'));
    const ws = nodePath.join(root, 'ws');
    mkdirSync(nodePath.join(root, 'out'));
    writeFileSync(nodePath.join(root, 'out', 'secret.txt'), 'S');
    mkdirSync(ws);
    symlinkSync(nodePath.join(root, 'out'), nodePath.join(ws, 'src'));
    const agent = '# After All\n\n```lua\nreturn { mine = aip.file.load("src/mine.txt").content, secret = aip.file.exists("src/secret.txt") }\n```\n';
    const vfs = createOverlayVfs(ws, { files: { 'main.aip': agent, 'src/mine.txt': 'M' }, diskless: [ws] });
    const outcome = new Simulator({ workspaceDir: ws, vfs }).run({ name: 'main', baseDir: ws });
    expect(outcome.afterAll).toEqual({ mine: 'M', secret: false });
    // the folder kept off the disk is wider than the workspace: outside the workspace, a read is still refused
    const outside = '# After All\n\n```lua\nreturn aip.file.load("' + nodePath.join(root, 'elsewhere.txt') + '")\n```\n';
    const wide = createOverlayVfs(ws, { files: { 'main.aip': outside }, diskless: [root] });
    expect(() => new Simulator({ workspaceDir: ws, vfs: wide }).run({ name: 'main', baseDir: ws })).toThrow(/Read protection \(simulator\)/);
    rmSync(root, { recursive: true, force: true });
  });
});

describe('lifecycle details (docs/aipack.md section 2-3)', () => {
  it('gives After All the implicit nil input as {null} when Before All set an empty list and a task ran', () => {
    const { outcome } = runFixture('empty-inputs');
    expect(outcome.outputs).toEqual([{ input_is_nil: true }]);
    expect(outcome.afterAll).toEqual({ inputs_n: 1, first_input_is_null: true, outputs_n: 1 });
  });

  it('converts tables given to before_all_response / data_response as stage return values are converted', () => {
    const { outcome } = runFixture('flow-tables');
    expect(outcome.outputs).toEqual([{ before_all: { empty: {}, mixed: [1, 2] }, data: { empty: {}, mixed: [4, 5] } }]);
  });

  it('honours allow_run_on_task_fail only from 0.8.17, with {error} outputs from 0.8.18', () => {
    expect(failure(() => runFixture('task-fail', { aipackVersion: '0.8.15' })).message).toContain('task two fails');
    expect(runFixture('task-fail', { aipackVersion: '0.8.17' }).outcome.afterAll).toEqual({ second: null, third: 3 });
    const later = runFixture('task-fail', { aipackVersion: '0.8.18' }).outcome.afterAll as { second: { error: string }; third: number };
    expect(later.second.error).toMatch(/^Lua error:\n.*task-fail\.aip:\d+: task two fails$/);
    expect(later.third).toBe(3);
  });

  it('echoes the temperature and top_p in ai_response.info', () => {
    const ai = ScriptedAi.fromList([{ match: 'Say hi', content: 'hi' }]);
    const { value } = runLua('return aip.agent.run("t.aip").outputs[1]', {
      ai,
      files: { 't.aip': '# Options\n\n```toml\ntemperature = 0.25\ntop_p = 0.5\n```\n\n# Instruction\n\nSay hi\n\n# Output\n\n```lua\nreturn ai_response.info\n```\n' },
    });
    expect(value).toMatch(/ \| Temperature: 0\.25 \| top_p: 0\.5$/);
  });
});

describe('aip.agent.run options and response (docs/aipack.md section 4)', () => {
  const callee = { 'x.aip': '# Output\n\n```lua\nreturn input\n```\n' };

  it('accepts any table as options (a list has no option keys), and still rejects non-tables', () => {
    const { value } = runLua(
      'local ok, e = pcall(aip.agent.run, "x.aip", "nope") return { list = aip.agent.run("x.aip", { "ignored" }).outputs[1] == nil, err = tostring(e) }',
      { files: callee },
    );
    expect(value).toEqual({ list: true, err: 'RunAgentOptions argument must be nil or a table { inputs?, options? }' });
  });

  it('reports redo_requested only from 0.8.17', () => {
    const code = 'return { t = type(aip.agent.run("x.aip").redo_requested) }';
    expect(runLua(code, { files: callee, aipackVersion: '0.8.15' }).value).toEqual({ t: 'nil' });
    expect(runLua(code, { files: callee, aipackVersion: '0.8.17' }).value).toEqual({ t: 'boolean' });
  });

  it('extract_options returns a table for any table, empty ones included', () => {
    const { value } = runLua(
      'local e = aip.agent.extract_options({}) local l = aip.agent.extract_options({ "a" }) local o = aip.agent.extract_options({ model = "m", x = 1 }) ' +
        'return { e = type(e), l = type(l), o = o, s = aip.agent.extract_options("s") == nil }',
    );
    expect(value).toEqual({ e: 'table', l: 'table', o: { model: 'm' }, s: true });
  });
});

describe('require and package (docs/aipack.md section 6)', () => {
  it('searches <PACK_DIR>/lua only from 0.8.18', () => {
    expect(sim({ aipackVersion: '0.8.15' }).run({ name: 'demo@tools/sub/pack-lua' }).afterAll).toBe('not found');
    expect(sim({ aipackVersion: '0.8.18' }).run({ name: 'demo@tools/sub/pack-lua' }).afterAll).toBe('demo@tools lua/shared_util.lua');
  });

  it('follows package.path (default ./?.lua included) without reading or probing outside the workspace', () => {
    const r = runFixture('package-path').outcome.afterAll as Record<string, string>;
    expect(r.root).toBe('root_mod.lua at the workspace root');
    expect(r.mod).toBe('agents/mods/pp_mod.lua');
    expect(r.outside).toContain("module 'hostname' not found");
    expect(r.outside).toContain("no file '/etc/hostname' (outside the workspace: not read)");
    expect(r.searchpath_found).toBe(nodePath.join(AGENTS, 'mods', 'pp_mod.lua'));
    // Lua 5.4's searchpath lists the files without a line break first (require adds one before each searcher's list)
    expect(r.searchpath_outside).toBe(`${ENGINE_NAME === 'lua54' ? '' : '\n\t'}no file '/etc/hostname' (outside the workspace: not read)`);
  });
});

describe('workspace config (.aipack/config.toml)', () => {
  it('merges its [options] under the agent, re-reading it when a run changed it', () => {
    const code = `
      local first = options.model
      aip.file.save(".aipack/config.toml", '[options]\\nmodel = "second"\\n')
      return { first = first, second = aip.agent.run("echo-model").after_all }`;
    const files = {
      '.aipack/config.toml': '[options]\nmodel = "from-config"\ntemperature = 0.5\n',
      'echo-model.aip': '# After All\n\n```lua\nreturn options.model\n```\n',
    };
    expect(runLua(code, { files }).value).toEqual({ first: 'from-config', second: 'second' });
  });

  it('names the file when its TOML is invalid', () => {
    expect(() => runLua('return 1', { files: { '.aipack/config.toml': '[options\n' } })).toThrow(/\.aipack\/config\.toml: invalid TOML: /);
  });
});
