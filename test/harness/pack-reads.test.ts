import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packReadsOf, withPackReads } from '../../src/harness/pack-reads.ts';
import { runContractFiles } from '../../src/harness/suite.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';

describe('pack reads of a suite', () => {
  it('keeps one set of reads per pack for the suite running, none outside a suite, a new one for each suite', () => {
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
    const first = withPackReads(() => {
      const reads = packReadsOf('/packs/pro/coder');
      expect(reads).toBeDefined();
      expect(packReadsOf('/packs/pro/coder/')).toBe(reads);
      expect(packReadsOf('/packs/other')).not.toBe(reads);
      expect(reads?.covers('/packs/pro/coder/lua/x.lua')).toBe(true);
      return reads;
    });
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
    withPackReads(() => expect(packReadsOf('/packs/pro/coder')).not.toBe(first));
  });

  it('ends the suite\'s reads when the suite throws', () => {
    expect(() =>
      withPackReads(() => {
        throw new Error('stopped');
      }),
    ).toThrow('stopped');
    expect(packReadsOf('/packs/pro/coder')).toBeUndefined();
  });
});

// a pack file edited while a suite runs is seen from the next suite on, never by a later case of the same suite
let dir: string;
let file: string;
let pack: typeof REPO_PACK;
const contract = () => nodePath.join(pack.dir, 'lua', 'sub_agent_contract.lua');

beforeAll(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'pack-reads-suite-'));
  pack = { ...REPO_PACK, dir: nodePath.join(dir, 'pack') };
  fs.cpSync(REPO_PACK.dir, pack.dir, { recursive: true });
  fs.mkdirSync(nodePath.join(dir, 'ws'));
  fs.writeFileSync(nodePath.join(dir, 'ws', 'no.aip'), '# Output\n\n```lua\nreturn { success = false, error_msg = "said no" }\n```\n');
  const c = (name: string) => `[[case]]\nname = "${name}"\nstage = "pre"\nprompt = "Go"\n[case.expect]\nunchanged = true\n`;
  file = nodePath.join(dir, 'ws', 'no.contract.toml');
  fs.writeFileSync(file, 'agent = "no.aip"\n\n' + c('first') + c('second'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the pack a suite runs on', () => {
  it('is read once per suite: an edit made during one suite shows in the next, not in its later cases', () => {
    const original = fs.readFileSync(contract(), 'utf8');
    const edited = original.replace('failed = "Sub-agent [{name}] failed: {error}"', 'failed = "Sub-agent [{name}] refused: {error}"');
    expect(edited).not.toBe(original);
    const messages = (r: ReturnType<typeof runContractFiles>) => r.cases.map((c) => /Sub-agent \[[^\]]*\] (\w+): said no/.exec(c.message ?? '')?.[1]);
    const first = runContractFiles([file], { pack, budget: 1e9, onCaseDone: () => fs.writeFileSync(contract(), edited) });
    expect(first.errors).toEqual([]);
    expect(messages(first)).toEqual(['failed', 'failed']);
    const next = runContractFiles([file], { pack, budget: 1e9 });
    expect(messages(next)).toEqual(['refused', 'refused']);
  });

  it('is judged by the read guard as it was read: a module swapped for a link out during a suite is refused from the next suite on', () => {
    const outside = nodePath.join(dir, 'outside.lua');
    fs.writeFileSync(outside, 'return {}');
    const saved = fs.readFileSync(contract());
    const swap = () => {
      fs.rmSync(contract());
      fs.symlinkSync(outside, contract());
    };
    try {
      const first = runContractFiles([file], { pack, budget: 1e9, onCaseDone: swap });
      // the second case gets the bytes the first read inside the pack, and nothing from outside
      expect(first.errors).toEqual([]);
      expect(first.cases.map((c) => /said no/.test(c.message ?? ''))).toEqual([true, true]);
      const next = runContractFiles([file], { pack, budget: 1e9 });
      expect(next.cases).toEqual([]);
      expect(next.errors.join('\n')).toMatch(/module 'sub_agent_contract' not found/);
    } finally {
      fs.rmSync(contract(), { force: true });
      fs.writeFileSync(contract(), saved);
    }
  });
});
