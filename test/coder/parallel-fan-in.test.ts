/**
 * Fan-in invariants of parallel groups, as properties over random groups run through the pack's own Lua
 * (pack/lua/utils_parallel.lua, with the pack's `parallel` agent) on the simulator: members that succeed, fail,
 * raise, change params or change the prompts, with either on_error.
 *
 * - the history holds every member exactly once, in member order: succeeded + failed = members;
 * - no unknown or duplicate result is accepted: each entry carries its own member's result (or error);
 * - the outcome is what the contract says (all failed, on_error = fail, a conflict), and
 * - it is the same whatever order the members run in.
 */
import fc from 'fast-check';
import '../helpers/fc-seed.ts';
import { readdirSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { runLua } from '../helpers/lua.ts';

const LUA_DIR = nodePath.join(REPO_PACK.dir, 'lua');
// the pack's modules next to the test agent, so `require` finds them as the pack's own agents do
const MODULES = Object.fromEntries(readdirSync(LUA_DIR).map((f) => [`lua/${f}`, readFileSync(nodePath.join(LUA_DIR, f), 'utf8')]));

const MEMBER = `# Output

\`\`\`lua
local c = input.agent_config
if c.kind == "raise" then error("boom " .. c.id, 0) end
if c.kind == "fail" then return { success = false, error_msg = "fail " .. c.id } end
local res = { agent_result = { id = c.id, index = input.parallel.index } }
if c.key then
  local p = input.coder_params
  p[c.key] = c.value
  res.coder_params = p
end
if c.prompt then res.coder_prompts = { c.prompt } end
return res
\`\`\`
`;

interface Member {
  name: string;
  id: string;
  kind: 'ok' | 'fail' | 'raise';
  key?: string;
  value?: number;
  prompt?: string;
}

const member = fc.record({
  kind: fc.constantFrom<Member['kind']>('ok', 'ok', 'ok', 'fail', 'raise'),
  key: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
  value: fc.constantFrom(1, 2),
  prompt: fc.option(fc.constantFrom('P1', 'P2'), { nil: undefined, freq: 4 }),
});
const group = fc.record({
  members: fc.array(member, { minLength: 1, maxLength: 5 }),
  on_error: fc.constantFrom('fail', 'continue'),
  order: fc.nat(),
});

interface Outcome {
  res?: { coder_params?: Record<string, number>; coder_prompts?: string[] };
  err?: string;
  entries?: { config: { id: string; name: string }; parallel: { index: number; size: number }; agent_result?: { id: string; index: number }; error?: string }[];
}

/** Runs utils_parallel.run_group on the group; `order` permutes the order the members run in. */
function runGroup(members: Member[], onError: string, order?: number[]): Outcome {
  const entry = { parallel: members, on_error: onError, concurrency: 4 };
  const code = `
local C = require("sub_agent_contract")
local P = require("utils_parallel")
local configs = assert(C.normalize_list({ aip.json.parse([==[${JSON.stringify(entry)}]==]) }))
local start = { a = 0, b = 0, c = 0 }
local res, err, entries = P.run_group("pre", configs[1], {
  index = 1,
  adopts = { coder_params = true, coder_prompts = true },
  input_of = function(m)
    return { coder_params = { a = start.a, b = start.b, c = start.c }, coder_prompts = { "p" }, coder_prompt = "p", agent_config = m }
  end,
})
return { res = res, err = err, entries = entries }`;
  const { value } = runLua(code, {
    files: { ...MODULES, 'm.aip': MEMBER },
    aipackVersion: '0.8.18',
    taskOrder: (agent, count) => (agent.endsWith('/parallel') && count === members.length ? order : undefined),
  });
  return value as Outcome;
}

function permutation(n: number, seed: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  let x = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What the contract says the group gives: an error kind, or the combined params and prompts. */
function expected(members: Member[], onError: string): { error?: RegExp; params?: Record<string, number>; prompts?: string[] } {
  const failed = members.filter((m) => m.kind !== 'ok');
  if (failed.length === members.length || (onError === 'fail' && failed.length > 0)) return { error: /^Parallel group \[1\] failed \(/ };
  const params: Record<string, number> = { a: 0, b: 0, c: 0 };
  const owner: Record<string, number> = {};
  let prompts: string[] | undefined;
  for (const m of members) {
    if (m.kind !== 'ok') continue;
    if (m.key !== undefined) {
      if (owner[m.key] !== undefined && owner[m.key] !== m.value) return { error: /^Parallel group \[1\]: m\.aip and m\.aip both change coder_params\./ };
      owner[m.key] = m.value!;
      params[m.key] = m.value!;
    }
    if (m.prompt !== undefined) {
      if (prompts !== undefined) return { error: /^Parallel group \[1\]: m\.aip and m\.aip both change coder_prompts$/ };
      prompts = [m.prompt];
    }
  }
  return { params: Object.keys(owner).length > 0 ? params : undefined, prompts };
}

describe('fan-in invariants (random groups through the pack Lua)', () => {
  it('every member once, its own result, the contract outcome, the same for another order', () => {
    fc.assert(
      fc.property(group, (g) => {
        const members: Member[] = g.members.map((m, i) => ({ name: 'm.aip', id: `m${i + 1}`, kind: m.kind, ...(m.key ? { key: m.key, value: m.value } : {}), ...(m.prompt ? { prompt: m.prompt } : {}) }));
        const n = members.length;
        const got = runGroup(members, g.on_error);
        const want = expected(members, g.on_error);
        if (want.error) {
          expect(got.err).toMatch(want.error);
          if (want.error.source.includes('failed')) {
            // every failed member is listed with its cause, in member order
            const causes = members.filter((m) => m.kind !== 'ok').map((m) => (m.kind === 'fail' ? `fail ${m.id}` : `boom ${m.id}`));
            const at = causes.map((c) => got.err!.indexOf(c));
            expect(at.every((p) => p > 0)).toBe(true);
            expect([...at].sort((a, b) => a - b)).toEqual(at);
            expect(got.err!.split('\n- Sub-agent [m.aip] failed: ')).toHaveLength(causes.length + 1);
          }
        } else {
          expect(got.err).toBeUndefined();
          const entries = got.entries ?? [];
          // every member exactly once, in member order, with its place
          expect(entries.map((e) => e.config.id)).toEqual(members.map((m) => m.id));
          expect(entries.map((e) => e.parallel)).toEqual(members.map((_, i) => ({ index: i + 1, size: n })));
          const succeeded = entries.filter((e) => e.error === undefined);
          const failed = entries.filter((e) => e.error !== undefined);
          expect(succeeded.length + failed.length).toBe(n);
          expect(failed.map((e) => e.config.id)).toEqual(members.filter((m) => m.kind !== 'ok').map((m) => m.id));
          // each result is its own member's: no result of another member, none twice
          for (const [i, e] of entries.entries()) {
            if (e.error === undefined) expect(e.agent_result).toEqual({ id: members[i]!.id, index: i + 1 });
            else expect(e.agent_result).toBeUndefined();
          }
          expect(got.res?.coder_params).toEqual(want.params);
          expect(got.res?.coder_prompts).toEqual(want.prompts);
        }
        // the same outcome when the members run in another order
        if (n > 1) expect(runGroup(members, g.on_error, permutation(n, g.order))).toEqual(got);
      }),
      { numRuns: 25 },
    );
  });
});
