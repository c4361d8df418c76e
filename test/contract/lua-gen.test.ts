/**
 * The generated `sub_agent_contract.lua` and the TS contract functions accept and reject the same values with
 * byte-identical messages. Values are generated as JS data, pushed into Lua by the project's Fengari bridge
 * (arrays with undefined slots become tables with nil holes, null becomes the null sentinel), run through both
 * sides, and the answers compared.
 */
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  STAGES,
  checkResponse,
  ignoredFields,
  messages,
  normalizeEntry,
  normalizeList,
  unknownEntryKeys,
  type SubAgentStage,
} from '../../src/contract/index.ts';
import { CONTRACT_LUA_FILE, generateContractLua } from '../../src/contract/lua-gen.ts';
import { contractLuaState } from '../helpers/contract-state.ts';
import type { LuaState } from '../../src/engine/engine.ts';

const SOURCE = generateContractLua();

let state: LuaState;
beforeAll(() => {
  state = contractLuaState(SOURCE);
});
afterAll(() => state.close());

/** Runs Lua code with `case` in scope (nested nulls stay the null sentinel); returns its value in `aip` mode. */
const runLua = (code: string, value: unknown): unknown =>
  state.runChunk(`local C = require("sub_agent_contract")\n${code}`, '/parity.lua', 1, { case: value }, 'aip');

/**
 * A JS value as it comes back from Lua after a round trip (the `aip` conversion): undefined slots and keys
 * vanish, an array with a hole becomes an object keyed by index, an empty table is [], -0 is 0.
 */
function asLua(v: unknown): unknown {
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  if (typeof v !== 'object' || v === null) return v;
  const entries: [string, unknown][] = Array.isArray(v)
    ? v.flatMap((x, i) => (x === undefined ? [] : [[String(i + 1), x] as [string, unknown]]))
    : Object.entries(v).filter(([, x]) => x !== undefined);
  if (entries.length === 0) return [];
  if (Array.isArray(v) && entries.every(([k], i) => k === String(i + 1))) return entries.map(([, x]) => asLua(x));
  return Object.fromEntries(entries.map(([k, x]) => [k, asLua(x)]));
}

// ---------------------------------------------------------------------------------------------------------------
// Generators: mostly-valid shapes with wrong values mixed in everywhere

const tricky = fc.string({
  unit: fc.constantFrom('a', 'Z', '_', ' ', '\0', '\n', '"', '\\', '{', '}', '%', '$', 'é', '😀', '.', '['),
  maxLength: 8,
});
const text = fc.oneof(fc.string({ maxLength: 8 }), tricky, fc.constantFrom('', '{name}', '%1', 'a.aip', 'pro@coder/x'));
const stageLike = fc.oneof(
  { arbitrary: fc.constantFrom(...STAGES), weight: 4 },
  { arbitrary: fc.constantFrom('Pre', 'post-task', '', 'pre ', 'all'), weight: 1 },
  { arbitrary: text, weight: 1 },
);
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 1, 2, -1));
const key = fc.oneof(
  fc.constantFrom('name', 'enabled', 'stages', 'options', 'on', 'model', 'content', 'sub_agents', 'working_globs', 'x'),
  fc.stringMatching(/^[a-z_]{1,5}$/),
);
const scalar = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  number,
  text,
  fc.constantFrom(...STAGES),
  fc.constantFrom('start', 'end', 'workbench::done'),
);

/** Any value that converts back from Lua (no functions; finite numbers). */
const { value: anyValue } = fc.letrec<{ value: unknown; array: unknown[]; sparse: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      { arbitrary: scalar, weight: 3 },
      { arbitrary: tie('array'), weight: 1 },
      { arbitrary: tie('sparse'), weight: 1 },
      { arbitrary: tie('object'), weight: 1 },
      { arbitrary: fc.constantFrom([], {}), weight: 1 },
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    sparse: fc.sparseArray(tie('value'), { maxLength: 5 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  }),
);
/** Also functions, for places whose value never comes back from Lua. */
const anyOrFunction = fc.oneof({ arbitrary: anyValue, weight: 8 }, { arbitrary: fc.constant(() => 1), weight: 1 });

const often = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>, weight = 4) =>
  fc.oneof({ arbitrary: good, weight }, { arbitrary: bad, weight: 1 });

const table = fc.oneof(fc.dictionary(key, anyValue, { maxKeys: 4 }), fc.constantFrom([], {}));
const listOf = <T>(item: fc.Arbitrary<T>) =>
  fc.oneof(
    { arbitrary: fc.array(item, { maxLength: 4 }), weight: 4 },
    { arbitrary: fc.sparseArray(item, { maxLength: 4 }), weight: 1 },
    { arbitrary: fc.array(fc.option(item, { nil: undefined }), { maxLength: 4 }), weight: 1 },
  );

const eventLike = fc.oneof(
  { arbitrary: fc.constantFrom('start', 'end'), weight: 4 },
  { arbitrary: fc.constantFrom('workbench::done', 'Start', ''), weight: 1 },
);

const entryTable = fc
  .tuple(
    fc.record(
      {
        name: often(fc.constantFrom('a.aip', 'pro@coder/agent-selector', 'my-agents/r.aip'), fc.oneof(text, anyValue)),
        enabled: often(fc.boolean(), anyValue),
        stages: often(fc.oneof(stageLike, listOf(stageLike)), anyValue),
        options: often(table, anyValue),
        on: often(fc.oneof(eventLike, listOf(eventLike)), anyValue),
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(fc.stringMatching(/^[a-z]{2,6}$/), anyValue, { maxKeys: 2 }),
  )
  .map(([known, extra]) => ({ ...extra, ...known }));

const entry = fc.oneof(
  { arbitrary: fc.constantFrom('a.aip', 'pro@coder/x', ''), weight: 2 },
  { arbitrary: entryTable, weight: 6 },
  { arbitrary: anyValue, weight: 1 },
);
const entries = often(listOf(entry), anyValue, 5);

const response = fc.oneof(
  {
    arbitrary: fc.record(
      {
        success: often(fc.boolean(), anyOrFunction),
        error_msg: often(text, anyOrFunction),
        error_details: often(text, anyOrFunction),
        coder_params: often(table, anyOrFunction),
        coder_prompts: often(listOf(often(text, anyOrFunction, 8)), anyOrFunction),
        coder_prompt: often(text, anyOrFunction),
        coder_response: often(
          fc.record({ content: often(text, anyOrFunction), model_name: text }, { requiredKeys: [] }),
          anyOrFunction,
        ),
        agent_result: anyOrFunction,
        sub_agents_next: entries,
        other: anyOrFunction,
      },
      { requiredKeys: [] },
    ),
    weight: 8,
  },
  { arbitrary: anyOrFunction, weight: 1 },
);

const label = fc.oneof(fc.constantFrom('sub_agents[3]', 'sub_agents_next[1]', 'x'), tricky);

// fengari runs this Lua slowly: a few hundred cases in all keep the file within seconds
const RUNS = { numRuns: 200 };

// ---------------------------------------------------------------------------------------------------------------

describe('generated Lua contract = TS contract', () => {
  it('exposes the constants', () => {
    expect(runLua('return { C.STAGES, C.MAX_STEPS, C.MIN_AIPACK_VERSION }', undefined)).toEqual([
      [...STAGES],
      100,
      '0.8.15',
    ]);
  });

  it('normalize_entry = normalizeEntry', () => {
    fc.assert(
      fc.property(entry, label, (e, l) => {
        const lua = runLua(
          'local cfg, err = C.normalize_entry(case.entry, case.label)\nreturn { ok = cfg ~= nil, config = cfg, err = err }',
          { entry: e, label: l },
        ) as { ok: boolean; config?: unknown; err?: string };
        const ts = normalizeEntry(e, l);
        if (ts.ok) {
          expect(lua.err).toBeUndefined();
          expect(lua.ok).toBe(true);
          expect(lua.config).toEqual(asLua(ts.config));
        } else {
          expect(lua).toEqual({ ok: false, err: ts.message });
        }
      }),
      RUNS,
    );
  });

  it('normalize_entry does not touch its input and returns a new table', () => {
    expect(
      runLua(
        `local e = { name = "a", stages = { "pre", "post" }, options = { model = "m" } }
         local cfg = C.normalize_entry(e, "x")
         cfg.stages[1] = "changed"
         return { same = cfg == e, stages = e.stages, enabled = e.enabled, options_shared = cfg.options == e.options }`,
        undefined,
      ),
    ).toEqual({ same: false, stages: ['pre', 'post'], options_shared: true });
  });

  it('normalize_list = normalizeList', () => {
    fc.assert(
      fc.property(entries, fc.option(label, { nil: undefined }), (list, l) => {
        const lua = runLua(
          'local cfgs, err = C.normalize_list(case.list, case.label)\nreturn { ok = cfgs ~= nil, configs = cfgs, err = err }',
          { list, label: l },
        ) as { ok: boolean; configs?: unknown; err?: string };
        const ts = normalizeList(list, l);
        if (ts.ok) {
          expect(lua.err).toBeUndefined();
          expect(lua.ok).toBe(true);
          expect(lua.configs).toEqual(asLua(ts.configs));
        } else {
          expect(lua).toEqual({ ok: false, err: ts.message });
        }
      }),
      { numRuns: 150 },
    );
  });

  it('normalize_list takes the null sentinel and an empty table as no sub-agents', () => {
    expect(runLua('return { #C.normalize_list(null), #C.normalize_list({}), #C.normalize_list(nil) }', undefined)).toEqual([
      0, 0, 0,
    ]);
  });

  it('check_response and ignored_fields = checkResponse and ignoredFields', () => {
    // one stage per run (fengari is slow): over the runs every stage meets every kind of response
    fc.assert(
      fc.property(fc.constantFrom(...STAGES), response, fc.constantFrom('none', 'same', 'other'), (stage: SubAgentStage, r, givenKind) => {
        // the sub-agent's input: absent, holding the very params the response returns, or other params
        const params = typeof r === 'object' && r !== null ? (r as Record<string, unknown>).coder_params : undefined;
        const given =
          givenKind === 'none' ? undefined : { coder_params: givenKind === 'same' ? params : { working_globs: ['x'], input_concurrency: 2 } };
        const lua = runLua(
          `local err = nil
           if case.response ~= nil then err = C.check_response(case.stage, case.response) end
           return { err = err or false, ignored = C.ignored_fields(case.stage, case.response, case.given) }`,
          { stage, response: r, given },
        );
        expect(lua).toEqual({ err: checkResponse(stage, r) ?? false, ignored: ignoredFields(stage, r, given) });
      }),
      { numRuns: 300 },
    );
  });

  it('check_response: nil is valid, and what is checked depends on the stage', () => {
    const r = { coder_prompts: 5, coder_response: { content: 1 } };
    const lua = runLua(
      `local out = {}
       for i, stage in ipairs(C.STAGES) do out[i] = C.check_response(stage, case.r) or false end
       out[5] = C.check_response("pre", nil) or false
       return out`,
      { r },
    );
    const expected = [
      'coder_prompts must be a list of strings, got number',
      'coder_prompts must be a list of strings, got number',
      'coder_response.content must be a string, got number',
      false,
      false,
    ];
    expect(lua).toEqual(expected);
    expect([...STAGES.map((stage) => checkResponse(stage, r) ?? false), checkResponse('pre', undefined) ?? false]).toEqual(
      expected,
    );
  });

  it('msg.* = messages.*', () => {
    const maybe = fc.oneof(text, fc.constant(undefined), fc.constant(null));
    fc.assert(
      fc.property(text, maybe, maybe, text, text, (name, errorMsg, details, what, current) => {
        const lua = runLua(
          `local c = case
           return { C.msg.failed(c.name, c.error_msg, c.details), C.msg.invalid(c.name, c.what),
                    C.msg.raised(c.name, c.what), C.msg.step_cap(c.what), C.msg.version(c.current) }`,
          { name, error_msg: errorMsg, details, what, current },
        );
        expect(lua).toEqual([
          messages.failed(name, errorMsg, details),
          messages.invalid(name, what),
          messages.raised(name, what),
          messages.stepCap(what),
          messages.version(current),
        ]);
      }),
      { numRuns: 60 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The same module on PUC Lua (5.4 is what AIPack embeds), when an interpreter is installed

const PUC_LUAS = ['lua5.4', 'lua5.3'].filter((bin) => spawnSync(bin, ['-v']).status === 0);

// .ci/run installs lua5.4; a local run without it says why the parity cases do not run
if (PUC_LUAS.length === 0) console.warn('lua-parity: skipped: neither lua5.4 nor lua5.3 is on PATH (apt-get install -y lua5.4)');
describe.skipIf(PUC_LUAS.length === 0)('generated Lua on PUC Lua (skipped when neither lua5.4 nor lua5.3 is installed)', () => {
  // [Lua expression, the same value in JS]; io.stdout stands in for the null sentinel (a userdata)
  const lists: [string, unknown][] = [
    ['nil', undefined],
    ['io.stdout', null],
    ['{}', []],
    ['{ "a.aip", { name = "b", stages = "post" } }', ['a.aip', { name: 'b', stages: 'post' }]],
    ['{ name = "a" }', { name: 'a' }],
    ['{ "a", nil, "b" }', ['a', undefined, 'b']],
    ['{ "a", 3 }', ['a', 3]],
    ['{ { name = "" } }', [{ name: '' }]],
    ['{ { name = "a", stages = { "pre", "later" } } }', [{ name: 'a', stages: ['pre', 'later'] }]],
    ['{ { name = "a", stages = {} } }', [{ name: 'a', stages: [] }]],
    ['{ { name = "a", enabled = io.stdout } }', [{ name: 'a', enabled: null }]],
    ['{ { name = "a", options = "m" } }', [{ name: 'a', options: 'm' }]],
  ];
  const responses: [string, unknown][] = [
    ['"text"', 'text'],
    ['{ coder_prompts = { "a", 2 } }', { coder_prompts: ['a', 2] }],
    ['{ coder_prompts = { "a" }, coder_prompt = "b" }', { coder_prompts: ['a'], coder_prompt: 'b' }],
    ['{ coder_response = {} }', { coder_response: {} }],
    ['{ coder_params = { working_globs = {}, sub_agents = {} }, coder_response = { content = "x" } }', { coder_params: { working_globs: [], sub_agents: [] }, coder_response: { content: 'x' } }],
    ['{ sub_agents_next = { {} } }', { sub_agents_next: [{}] }],
    ['{ success = "no", error_msg = 1 }', { success: 'no', error_msg: 1 }],
  ];

  it.each(PUC_LUAS)('%s gives the answers of the TS contract', (bin) => {
    const dir = mkdtempSync(join(tmpdir(), 'coder-subagents-puc-'));
    try {
      writeFileSync(join(dir, CONTRACT_LUA_FILE), SOURCE);
      const script = [
        `package.path = ${JSON.stringify(dir + '/?.lua')}`,
        'local C = require("sub_agent_contract")',
        'local function out(s) io.write(s, "\\0") end',
        ...lists.map(([expr]) => `do local c, e = C.normalize_list(${expr}); out(e or ("ok:" .. #c)) end`),
        ...responses.flatMap(([expr]) =>
          STAGES.map(
            (stage) =>
              `do local v = ${expr}; out((C.check_response("${stage}", v) or "valid") .. "|" .. table.concat(C.ignored_fields("${stage}", v), ",")) end`,
          ),
        ),
        'out(C.msg.failed("a", nil, "d")); out(C.msg.step_cap("post")); out(C.msg.version("0.8.14"))',
      ].join('\n');
      writeFileSync(join(dir, 'run.lua'), script);
      const r = spawnSync(bin, [join(dir, 'run.lua')], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      const expected = [
        ...lists.map(([, v]) => {
          const n = normalizeList(v);
          return n.ok ? `ok:${n.configs.length}` : n.message;
        }),
        ...responses.flatMap(([, v]) =>
          STAGES.map((stage) => `${checkResponse(stage, v) ?? 'valid'}|${ignoredFields(stage, v).join(',')}`),
        ),
        messages.failed('a', undefined, 'd'),
        messages.stepCap('post'),
        messages.version('0.8.14'),
      ];
      expect(r.stdout.split('\0').slice(0, -1)).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('upstream event form (pack/SUB_AGENTS.md section 7), in Lua as in TS', () => {
  const cases: [unknown, string][] = [
    [{ name: 'a.aip', on: 'end' }, 'ok'],
    [{ name: 'a.aip', on: ['start', 'end', 'start'] }, 'ok'],
    [{ name: 'a.aip', on: 'workbench::done' }, 'bad event'],
    [{ name: 'a.aip', on: 'end', stages: ['post'] }, 'both'],
  ];
  it.each(cases)('%j', (e) => {
    const ts = normalizeEntry(e, 'sub_agents[2]');
    const lua = runLua(
      'local cfg, err = C.normalize_entry(case.entry, "sub_agents[2]")\nreturn { ok = cfg ~= nil, config = cfg, err = err }',
      { entry: e },
    ) as { ok: boolean; config?: unknown; err?: string };
    expect(lua.ok).toBe(ts.ok);
    if (ts.ok) expect(lua.config).toEqual(ts.config);
    else expect(lua.err).toBe(ts.message);
  });

  it('an entry giving on is in the event form: on made a list, no stages filled in, any event name accepted', () => {
    expect(normalizeEntry({ name: 'a.aip', on: 'end' }, 'x')).toEqual({ ok: true, config: { name: 'a.aip', on: ['end'], enabled: true } });
    expect(normalizeEntry({ name: 'a.aip', on: ['end', 'my::done'] }, 'x')).toEqual({
      ok: true,
      config: { name: 'a.aip', on: ['end', 'my::done'], enabled: true },
    });
    expect(normalizeEntry({ name: 'a.aip' }, 'x')).toEqual({ ok: true, config: { name: 'a.aip', enabled: true, stages: ['pre'] } });
    expect(normalizeEntry({ name: 'a.aip', on: '' }, 'sub_agents[2]')).toEqual({
      ok: false,
      message: 'sub_agents[2]: on must be a non-empty string, got empty string',
    });
    expect(normalizeEntry({ name: 'a.aip', on: 'end', stages: 'post' }, 'sub_agents[1]')).toEqual({
      ok: false,
      message: 'sub_agents[1]: stages and on cannot both be given',
    });
    for (const entry of [{ name: 'a.aip', on: 'end' }, { name: 'a.aip', on: ['x::y'] }, { name: 'a.aip', on: [] }, { name: 'a.aip', on: 3 }]) {
      const ts = normalizeEntry(entry, 'sub_agents[1]');
      const lua = runLua('local cfg, err = C.normalize_entry(case.entry, "sub_agents[1]")\nreturn { ok = cfg ~= nil, config = cfg, err = err }', {
        entry,
      }) as { ok: boolean; config?: unknown; err?: string };
      expect(lua.ok).toBe(ts.ok);
      if (ts.ok) expect(lua.config).toEqual(ts.config);
      else expect(lua.err).toBe(ts.message);
    }
  });

  it('event-form response fields count only for event-form entries, in their stages', () => {
    const res = { emit_events: ['a::b'], agent_on: ['start', 'end'], coder_redo: true };
    for (const [stage, form] of [['pre', 'event'], ['post', 'event'], ['pre', 'stage'], ['post', 'stage']] as const) {
      const ts = ignoredFields(stage, res, undefined, form);
      expect(runLua('return C.ignored_fields(case.stage, case.res, nil, case.form)', { stage, res, form })).toEqual(ts);
    }
    expect(ignoredFields('pre', res, undefined, 'event')).toEqual(['coder_redo']);
    expect(ignoredFields('post', res, undefined, 'event')).toEqual(['agent_on']);
    expect(ignoredFields('pre', res, undefined, 'stage')).toEqual(['agent_on', 'coder_redo', 'emit_events']);
    const bad = { emit_events: 'a::b' };
    expect(checkResponse('pre', bad, 'event')).toBe('emit_events must be a list of non-empty strings, got string');
    expect(runLua('return C.check_response("pre", case.bad, "event")', { bad })).toBe(checkResponse('pre', bad, 'event'));
    expect(checkResponse('pre', bad, 'stage')).toBeUndefined();
  });

  it('unknown entry keys and unknown params are named the same on both sides', () => {
    const e = { name: 'a.aip', named_maps: [], zeta: 1, on: 'start' };
    expect(unknownEntryKeys(e)).toEqual(['named_maps', 'zeta']);
    expect(runLua('return C.unknown_entry_keys(case.e)', { e })).toEqual(['named_maps', 'zeta']);
    const params = { model: 'x', workbench: { chat: true }, udiffx_inst_debug: true, contxt_globs: [] };
    const want = messages.paramWarnings(params);
    // udiffx_inst_debug is read (the pack's own udiffx instruction): no warning
    expect(want).toEqual(["unknown prompt parameter 'contxt_globs': it is ignored"]);
    expect(runLua('return C.param_warnings(case.p)', { p: params })).toEqual(want);
  });
});

describe('param warnings', () => {
  it('an upstream feature switched off is not warned about, in Lua as in TS', () => {
    const params = { auto_context: { model: 'luna', enabled: false }, auto_fix: false, udiffx_inst_debug: false, workbench: null, dev: { chat: true } };
    const want = messages.paramWarnings(params);
    expect(want).toEqual([]);
    const on = { ...params, udiffx_inst_debug: true, explicit_code_map_selections: [], contxt: 1 };
    expect(messages.paramWarnings(on).map((w) => w.split("'")[1])).toEqual(['contxt']);
    expect(runLua('return C.param_warnings(case.p)', { p: on })).toEqual(messages.paramWarnings(on));
    expect(runLua('return C.param_warnings(case.p)', { p: params })).toEqual(want);
  });
});
