import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { CaseFileError } from '../../src/harness/case-file.ts';
import { runContractFile } from '../../src/harness/run-case.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { AGENTS, tmpDir, write } from './helpers.ts';

describe('prepareAgent: the agent under test and the files its sandbox holds', () => {
  it('reads the agent and its lua/ dir, keyed as the agent is named, and what to watch', () => {
    const agent = prepareAgent('lister.aip', AGENTS);
    expect(agent).toMatchObject({ name: 'lister.aip', file: nodePath.join(AGENTS, 'lister.aip'), depth: 0, pack: REPO_PACK, packs: [REPO_PACK] });
    expect([...agent.files.keys()].sort()).toEqual(['lister.aip', 'lua/refine.lua']);
    expect(agent.watch).toEqual([nodePath.join(AGENTS, 'lister.aip'), nodePath.join(AGENTS, 'lua')]);
  });

  it('an agent above the base dir: keys climb with .., the depth says how far', () => {
    const dir = tmpDir(true);
    const agent = prepareAgent('../agents/prompt-refiner.aip', nodePath.join(dir, 'cases'));
    expect(agent.depth).toBe(1);
    expect([...agent.files.keys()]).toContain('../agents/prompt-refiner.aip');
  });

  it('support paths are copied too; a missing agent or support path is a CaseFileError naming the key', () => {
    const dir = tmpDir();
    write(dir, '.aipack/config.toml', '');
    write(dir, 'a.aip', '# Output\n\n```lua\nreturn nil\n```\n');
    write(dir, 'data/x.txt', 'x');
    expect([...prepareAgent('a.aip', dir, ['data']).files.keys()].sort()).toEqual(['a.aip', 'data/x.txt']);
    expect(() => prepareAgent('b.aip', dir)).toThrow(CaseFileError);
    expect(() => prepareAgent('b.aip', dir)).toThrow(/^runStage: agent: 'b\.aip' not found/);
    expect(() => prepareAgent('a.aip', dir, ['nope'], {}, 'x.contract.toml')).toThrow(/^x\.contract\.toml: support\[1\]: 'nope' not found/);
  });

  it('places an agent above the base dir so that its name resolves as written', () => {
    const dir = tmpDir(true);
    const r = runStage({ agent: '../agents/prompt-refiner.aip', baseDir: nodePath.join(dir, 'cases'), prompt: 'Fix' });
    expect(r.ok).toBe(true);
    expect(r.prompts).toEqual(['Fix', 'Focus: app']);
    expect((r.input as { agent_config: { name: string } }).agent_config.name).toBe('../agents/prompt-refiner.aip');
  });
  it('runs a pack agent (ns@pack/name) of a custom pack found above the base dir, with its lua/ modules', () => {
    // built at test time: the repo's .gitignore (*.aipack) would keep a .aipack/ fixture dir out of git
    const ws = tmpDir();
    const pack = '.aipack/pack/custom/acme/tools';
    write(ws, `${pack}/shout.aip`, '# Output\n\n```lua\nlocal S = require("shout_util")\nreturn { coder_prompt = S.shout(input.coder_prompt) }\n```\n');
    write(ws, `${pack}/lua/shout_util.lua`, 'return { shout = function(s) return string.upper(s) .. "!" end }\n');
    write(ws, 'cases/shout.contract.toml', 'agent = "acme@tools/shout"\n[[case]]\nname = "shouts"\nprompt = "fix it"\n[case.expect]\nprompt = "FIX IT!"\n');
    const r = runStage({ agent: 'acme@tools/shout', baseDir: nodePath.join(ws, 'cases'), prompt: 'fix it' });
    expect(r.ok).toBe(true);
    expect(r.prompt).toBe('FIX IT!');
    expect((r.input as { agent_config: { name: string } }).agent_config.name).toBe('acme@tools/shout');
    const file = runContractFile(nodePath.join(ws, 'cases/shout.contract.toml'));
    expect(file.cases.map((c) => c.status)).toEqual(['passed']);
    expect(file.watch).toContain(nodePath.join(ws, pack, 'lua'));
  });
});
