/**
 * Parallel group entries (section 8 of the contract): normalisation and its messages, in TS and in the generated
 * Lua, which must accept and reject the same groups with byte-identical messages.
 */
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeEntry, normalizeList, unknownEntryKeys } from '../../src/contract/index.ts';
import { luaEqual } from '../../src/contract/lua-values.ts';
import { contractLuaState } from '../helpers/contract-state.ts';
import type { LuaState } from '../../src/engine/engine.ts';

let state: LuaState;
beforeAll(() => {
  state = contractLuaState();
});
afterAll(() => state.close());

const luaNormalize = (entry: unknown, label: string) =>
  state.runChunk(
    'local C = require("sub_agent_contract")\nlocal cfg, err = C.normalize_entry(case.entry, case.label)\nreturn { ok = cfg ~= nil, config = cfg, err = err }',
    '/parallel.lua',
    1,
    { case: { entry, label } },
    'aip',
  ) as { ok: boolean; config?: unknown; err?: string };

const message = (entry: unknown) => {
  const r = normalizeEntry(entry, 'sub_agents[2]');
  return r.ok ? undefined : r.message;
};

describe('group entries', () => {
  it('normalise: members carry the group stages (and on), defaults concurrency 4 and on_error fail', () => {
    const r = normalizeEntry({ parallel: ['a.aip', { name: 'b.aip', strict: true }], stages: ['post'] }, 'sub_agents[1]');
    expect(r).toEqual({
      ok: true,
      config: {
        parallel: [
          { name: 'a.aip', enabled: true, stages: ['post'] },
          { name: 'b.aip', strict: true, enabled: true, stages: ['post'] },
        ],
        enabled: true,
        stages: ['post'],
        concurrency: 4,
        on_error: 'fail',
      },
    });
    const event = normalizeEntry({ parallel: ['a.aip'], on: 'end', concurrency: 2, on_error: 'continue' }, 'x');
    // an event-form group: its members take its events, and no stages are filled in
    expect(event).toEqual({
      ok: true,
      config: { enabled: true, on: ['end'], concurrency: 2, on_error: 'continue', parallel: [{ name: 'a.aip', enabled: true, on: ['end'] }] },
    });
  });

  it('reject nested groups, members with their own stages or on, empty or oversized groups, naming the entry', () => {
    expect(message({ parallel: ['a.aip', { parallel: ['b.aip'] }] })).toBe('sub_agents[2]: parallel[2]: a parallel group cannot contain another group');
    expect(message({ parallel: [{ name: 'a.aip', stages: ['pre'] }] })).toBe(
      "sub_agents[2]: parallel[1]: a member of a parallel group cannot give its own 'stages' (the group's applies to every member)",
    );
    expect(message({ parallel: [{ name: 'a.aip', on: 'start' }] })).toMatch(/^sub_agents\[2\]: parallel\[1\]: a member .* own 'on'/);
    expect(message({ parallel: [] })).toBe('sub_agents[2]: parallel must not be empty');
    expect(message({ parallel: Array.from({ length: 17 }, (_, i) => `a${i}.aip`) })).toBe('sub_agents[2]: parallel has 17 members, at most 16 are allowed');
    expect(message({ parallel: 'a.aip' })).toBe('sub_agents[2]: parallel must be a list of sub-agent entries, got string');
    expect(message({ parallel: [''] })).toBe('sub_agents[2].parallel[1]: name must be a non-empty string, got empty string');
    expect(message({ parallel: ['a.aip'], concurrency: 0 })).toBe('sub_agents[2]: concurrency must be an integer from 1 to 16, got 0');
    expect(message({ parallel: ['a.aip'], concurrency: 17 })).toBe('sub_agents[2]: concurrency must be an integer from 1 to 16, got 17');
    expect(message({ parallel: ['a.aip'], concurrency: '4' })).toBe('sub_agents[2]: concurrency must be an integer from 1 to 16, got "4"');
    expect(message({ parallel: ['a.aip'], on_error: 'ignore' })).toBe('sub_agents[2]: on_error must be "fail" or "continue", got "ignore"');
    expect(message({ parallel: ['a.aip'], name: 'g' })).toBe('sub_agents[2]: name and parallel cannot both be given');
    expect(message({ parallel: ['a.aip'], options: { model: 'm' } })).toBe('sub_agents[2]: options: give options on the members of a parallel group, not on the group');
    expect(message({ parallel: ['a.aip'], stages: ['later'] })).toMatch(/^sub_agents\[2\]: stages/);
  });

  it('a list with a bad group fails as a whole; group keys are not unknown keys', () => {
    expect(normalizeList(['a.aip', { parallel: [] }])).toEqual({ ok: false, message: 'sub_agents[2]: parallel must not be empty' });
    expect(unknownEntryKeys({ parallel: ['a.aip'], concurrency: 2, on_error: 'fail', colour: 'red' })).toEqual(['colour']);
    expect(unknownEntryKeys({ name: 'a.aip', concurrency: 2 })).toEqual(['concurrency']);
  });
});

// ---------------------------------------------------------------------------------------------------------------

function defined(g: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined));
}
const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -3, max: 20 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('', 'x', '4', 'fail'), fc.constantFrom([], {}));
const often = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
const rarely = <T>(value: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: value, weight: 1 });
const member = fc.oneof(
  { arbitrary: fc.constantFrom('a.aip', 'my-agents/r.aip', ''), weight: 3 },
  {
    arbitrary: fc.record({
      name: often(fc.constantFrom('a.aip', 'b.aip'), junk),
      enabled: rarely(often(fc.boolean(), junk)),
      stages: rarely(fc.constantFrom('pre', ['post'])),
      on: rarely(fc.constant('end')),
      parallel: rarely(fc.constant(['x.aip'])),
      options: rarely(often(fc.constant({ model: 'm' }), junk)),
      focus: rarely(fc.string({ maxLength: 3 })),
    }),
    weight: 4,
  },
  { arbitrary: junk, weight: 1 },
);
const group = fc.record({
  parallel: often(fc.array(member, { minLength: 1, maxLength: 6 }), fc.oneof(junk, fc.array(member, { maxLength: 18 }))),
  concurrency: rarely(often(fc.integer({ min: 1, max: 16 }), junk)),
  on_error: rarely(often(fc.constantFrom('fail', 'continue'), junk)),
  enabled: rarely(often(fc.boolean(), junk)),
  stages: rarely(often(fc.constantFrom('pre', ['post', 'pre_task'], 'post_task'), junk)),
  on: rarely(fc.constantFrom('start', ['end'])),
  name: rarely(fc.constant('g')),
  options: rarely(fc.constant({})),
  colour: rarely(fc.string({ maxLength: 2 })),
}).map(defined);
// well-formed groups only, mixed in so every seed exercises the accepted path (the mixed generator alone can
// draw fewer than a handful of them in 150 runs)
const goodMember = fc.oneof(
  fc.constantFrom('a.aip', 'my-agents/r.aip'),
  fc.record({ name: fc.constantFrom('a.aip', 'b.aip'), enabled: rarely(fc.boolean()), options: rarely(fc.constant({ model: 'm' })) }).map(defined),
);
const goodGroup = fc.record({
  parallel: fc.array(goodMember, { minLength: 1, maxLength: 6 }),
  concurrency: rarely(fc.integer({ min: 1, max: 16 })),
  on_error: rarely(fc.constantFrom('fail', 'continue')),
  enabled: rarely(fc.boolean()),
  stages: rarely(fc.constantFrom('pre', ['post', 'pre_task'], 'post_task')),
}).map(defined);
const anyGroup = fc.oneof({ arbitrary: group, weight: 3 }, { arbitrary: goodGroup, weight: 1 });

describe('generated Lua = TS for group entries', () => {
  it('normalize_entry = normalizeEntry on random groups (both accepted and rejected ones)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyGroup, (g) => {
        const ts = normalizeEntry(g, 'sub_agents[4]');
        const lua = luaNormalize(g, 'sub_agents[4]');
        if (ts.ok) {
          accepted++;
          expect(lua.err).toBeUndefined();
          // an empty table has no JS shape of its own in Lua (options = [] comes back as {}): compare as Lua sees them
          if (!luaEqual(lua.config, ts.config)) expect(lua.config).toEqual(JSON.parse(JSON.stringify(ts.config)));
        } else {
          expect(lua).toEqual({ ok: false, err: ts.message });
        }
      }),
      { numRuns: 150 },
    );
    expect(accepted).toBeGreaterThan(5);
  });
});
