/**
 * The names a prompt's `sub_agents` gives, checked where they are written (lua/utils_names.lua): an event nothing
 * sends, an emitted event no entry listens to, keys that look like a misspelt contract key; and the keys that are
 * settings, never warned (an event-form entry's own keys, a member's, a built-in's). Fixture:
 * fixtures/coder-upstream/prompts/names.
 */
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder } from '../helpers/coder.ts';
import { tmpDir, write } from '../harness/helpers.ts';
import { modelNameFindings } from '../../src/check/model-names.ts';
import { modelsWorkspace } from '../helpers/models.ts';
import { readFileSync } from 'node:fs';
import { runLua } from '../helpers/lua.ts';
import { prng } from '../helpers/prng.ts';

const UP = fileURLToPath(new URL('../../fixtures/coder-upstream', import.meta.url)).replace(/[\\/]$/, '');

describe('names in sub_agents', () => {
  const r = runCoder('prompts/names', { workspace: UP, aipackVersion: '0.8.33' });
  const warnings = r.prints.filter((p) => p.startsWith('WARNING: '));

  it('warns, with did-you-mean, about an event the pack never sends, an emitted event nobody hears, and a misspelt key', () => {
    completed(r);
    expect(warnings).toEqual([
      "WARNING: sub_agents[2]: unknown key 'enabeld' (did you mean 'enabled'? kept, the agent reads it as input.agent_config.enabeld)",
      "WARNING: sub_agents[4]: unknown key 'tone' (kept, the agent reads it as input.agent_config.tone; put an agent's own settings under config = { ... }, which is never warned about)",
      "WARNING: sub_agents[6]: parallel[2]: unknown key 'optoins' (did you mean 'options'? kept, the agent reads it as input.agent_config.optoins)",
      "WARNING: sub_agents[2] (my-agents/after-run.aip) listens to 'strat', which the pack never sends (it sends 'start' and 'end'; a sub-agent emits events named 'ns::event'): it never runs (did you mean 'start'?)",
      "WARNING: Sub-agent [my-agents/ctx-narrow.aip] emitted 'ctx::narrowed', which no entry listens to: nothing runs for it (did you mean 'ctx::narowed'?)",
    ]);
  });

  it("never warns about an event-form entry's own keys, a member's own keys or a built-in's settings", () => {
    const text = warnings.join('\n');
    expect(text).not.toMatch(/'focus'|'globs'|'max_file_size_kb'/);
  });
});

describe('a sub-agent named outside the workspace', () => {
  it('says it is outside the workspace, not only that it does not exist', () => {
    const dir = tmpDir();
    write(dir, 'outside.aip', '# Output\n```lua\nreturn nil\n```\n');
    write(dir, 'ws/ai.toml', '');
    write(dir, 'ws/.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = ["../outside.aip"]\n```\nDo it\n====\n');
    const r = runCoder(undefined, { workspace: nodePath.join(dir, 'ws'), aipackVersion: '0.8.33' });
    expect(r.outcome?.skipped ?? r.error?.message).toContain(
      `Sub-agent [../outside.aip] not found: ${nodePath.join(dir, 'outside.aip')} is outside the workspace (${nodePath.join(dir, 'ws')})`,
    );
  });
});

describe('model names', () => {
  it('the run warns about each model name AIPack would not take as meant, as check does (one line each, did-you-mean)', () => {
    const { ws, prompt } = modelsWorkspace();
    write(ws, 'ai.toml', '');
    const r = runCoder(undefined, { workspace: ws, aipackVersion: '0.8.33' });
    const warnings = r.prints.filter((p) => p.startsWith('WARNING: ') && p.includes("model '"));
    expect(warnings).toEqual(modelNameFindings(ws, prompt).map((f) => `WARNING: ${f.message}`));
    expect(warnings).toHaveLength(4);
  });
});

describe("utils_names' did-you-mean", () => {
  /** the rule as a full table of edit distances (with adjacent transpositions) states it */
  function distance(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]) as number[][];
    for (let j = 1; j <= b.length; j++) d[0]![j] = j;
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        const row = d[i]!;
        row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
      }
    }
    return d[a.length]![b.length]!;
  }
  function expected(word: string, candidates: string[]): string | null {
    const w = word.toLowerCase();
    const limit = Math.max(1, Math.floor(w.length / 3));
    let best: [string, number] | undefined;
    for (const c of candidates) {
      const d = distance(w, c.toLowerCase());
      if (d <= limit && c !== word && (best === undefined || d < best[1])) best = [c, d];
    }
    return best?.[0] ?? null;
  }

  it('picks the closest candidate within a third of the word, as the full table of distances does', () => {
    // long ones too: a word of 15 letters may be 5 edits off, far from the diagonal the bounded distance keeps to
    const candidates = ['name', 'enabled', 'stages', 'options', 'config', 'on', 'start', 'end', 'Model', 'ab', 'knowledge_globs', 'sub_agents_next', 'max_file_size_kb'];
    const random = prng(35);
    const letters = 'abcdeilmnoprstg_';
    const words = ['stgaes', 'enabeld', 'optoins', 'strat', 'STAGES', 'stages', 'confg', 'o', 'no', 'modle', 'ba', 'nmae', '', 'knowlegde_glbos', 'subagents_nxt', 'max_filesize', 'x'.repeat(40), 'kb_size_file_max'];
    for (let i = 0; i < 600; i++) {
      const base = candidates[Math.floor(random() * candidates.length)]!;
      const chars = [...base];
      // a few edits of a candidate: a typo, a swap, a letter more or less
      for (let k = Math.floor(random() * 7); k > 0; k--) {
        const at = Math.floor(random() * (chars.length + 1));
        const op = Math.floor(random() * 4);
        const letter = letters[Math.floor(random() * letters.length)]!;
        if (op === 0) chars.splice(at, 0, letter);
        else if (op === 1) chars.splice(at, 1);
        else if (op === 2) chars[at] = letter;
        else if (at + 1 < chars.length) [chars[at], chars[at + 1]] = [chars[at + 1]!, chars[at]!];
      }
      words.push(chars.join(''));
    }
    const lua = (name: string) => readFileSync(new URL(`../../pack/lua/${name}`, import.meta.url), 'utf8');
    const { value } = runLua(
      `local N = require("utils_names")
       local words = aip.json.parse([==[${JSON.stringify(words)}]==])
       local candidates = aip.json.parse([==[${JSON.stringify(candidates)}]==])
       local out = {}
       for i, word in ipairs(words) do out[i] = N.suggest(word, candidates) or false end
       return out`,
      { files: { 'lua/utils_names.lua': lua('utils_names.lua'), 'lua/sub_agent_contract.lua': lua('sub_agent_contract.lua') } },
    );
    expect((value as (string | false)[]).map((v) => (v === false ? null : v))).toEqual(words.map((w) => expected(w, candidates)));
  });
});
