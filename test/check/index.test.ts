import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCheck, runCheckDetailed } from '../../src/check/index.ts';

let root: string;
const write = (rel: string, content: string) => {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
};
const aip = (lua: string) => `# Data\n\`\`\`lua\n${lua}\n\`\`\`\n`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'check-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('runCheck', () => {
  it('lints lua modules (module scope) and .aip files under pack and fixtures, skipping node_modules and dot-dirs', async () => {
    write('lua/util.lua', 'local M = {}\nfunction M.f() return input end\nreturn M\n');
    write('pack/lua/util.lua', 'return { n = 0xFFFFFFFF }\n');
    write('pack/main.aip', aip('return aip.file.copy("a", "b")'));
    write('fixtures/agents/a.aip', aip('return nope'));
    write('fixtures/agents/lua/helper.lua', 'return data\n');
    write('fixtures/node_modules/x.aip', aip('return nope'));
    write('fixtures/.hidden/x.aip', aip('return nope'));
    write('fixtures/notes.lua', 'return nope\n'); // not under a lua/ dir: not a module
    const r = await runCheckDetailed({ root, paths: [], minAipackVersion: '0.8.14', renderPack: null });
    expect(r.files.sort()).toEqual(['fixtures/agents/a.aip', 'fixtures/agents/lua/helper.lua', 'lua/util.lua', 'pack/lua/util.lua', 'pack/main.aip']);
    expect(r.findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.rule}`)).toEqual([
      'fixtures/agents/lua/helper.lua:1:8: undefined-global',
      'lua/util.lua:2:23: undefined-global',
      'pack/lua/util.lua:1:14: int-too-large',
      'fixtures/agents/a.aip:3:8: undefined-global',
      'pack/main.aip:3:8: aip-too-new',
    ]);
  });

  it('checks only the given paths for .aip files; a missing explicit path is an error', async () => {
    write('pack/main.aip', aip('return nope'));
    write('other/x.aip', aip('return 1'));
    const r = await runCheckDetailed({ root, paths: ['other'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.files).toEqual(['other/x.aip']);
    expect(r.findings).toEqual([]);
    await expect(runCheck({ root, paths: ['missing'], minAipackVersion: '0.8.15', renderPack: null })).rejects.toThrow(
      'no such file or directory: missing',
    );
  });

  it('reports pack/ files that are missing, stale or unexpected', async () => {
    write('pack/main.aip', '# Data\n');
    write('pack/lua/old.lua', 'return 1\n');
    write('pack/pack.toml', '[pack]\nnamespace = "x"\n');
    const expected = new Map([
      ['main.aip', '# Data\n'],
      ['pack.toml', '[pack]\nnamespace = "y"\n'],
      ['lua/new.lua', 'return 2\n'],
    ]);
    const findings = await runCheck({ root, paths: [], minAipackVersion: '0.8.15', renderPack: () => expected });
    expect(findings).toEqual([
      {
        file: 'pack/lua/new.lua',
        line: 1,
        column: 1,
        rule: 'stale-pack',
        message: 'pack/ is not what `coder-subagents build` would write: lua/new.lua is missing; run `npx coder-subagents build`',
      },
      {
        file: 'pack/pack.toml',
        line: 1,
        column: 1,
        rule: 'stale-pack',
        message: 'pack/ is not what `coder-subagents build` would write: pack.toml is stale; run `npx coder-subagents build`',
      },
      {
        file: 'pack/lua/old.lua',
        line: 1,
        column: 1,
        rule: 'stale-pack',
        message: 'pack/ is not what `coder-subagents build` would write: lua/old.lua is unexpected; run `npx coder-subagents build`',
      },
    ]);
  });

  it('passes a fresh pack and reports a renderPack failure as a finding', async () => {
    write('pack/main.aip', aip('return 1'));
    const fresh = new Map([['main.aip', aip('return 1')]]);
    expect(await runCheck({ root, paths: [], minAipackVersion: '0.8.15', renderPack: () => fresh })).toEqual([]);
    const broken = await runCheck({
      root,
      paths: [],
      minAipackVersion: '0.8.15',
      renderPack: () => {
        throw new Error('no lua/ sources');
      },
    });
    expect(broken).toEqual([
      expect.objectContaining({ file: 'pack', rule: 'stale-pack', message: expect.stringContaining('no lua/ sources') }),
    ]);
  });
});

describe('runCheck: the stage of a sub-agent', () => {
  const agent = aip('local p = input.coder_parms\nreturn nil').replace('# Data', '# Output');
  const finding = (file: string, stages: string) =>
    `${file}:3:17: unknown-field: input.coder_parms: the input of ${stages} has no field 'coder_parms'; did you mean coder_params?`;
  const shown = async (paths: string[]) =>
    (await runCheckDetailed({ root, paths, minAipackVersion: '0.8.15', renderPack: null })).findings.map(
      (f) => `${f.file}:${f.line}:${f.column}: ${f.rule}: ${f.message}`,
    );

  it('comes from its contract file (the stages of its cases)', async () => {
    write('agents/a.aip', agent);
    write('agents/a.contract.toml', 'agent = "a.aip"\n[[case]]\nname = "x"\nstage = "post"\n[[case]]\nname = "y"\nstage = "pre"\n');
    expect(await shown(['agents'])).toEqual([finding('agents/a.aip', 'stages post, pre')]);
  });

  it('comes from the sub_agents of a prompt file given to check, or of a workspace prompt file', async () => {
    write('.aipack/config.toml', '');
    write('agents/a.aip', agent);
    const prompt = '```toml\n#!meta\nsub_agents = [{ name = "agents/a", stages = ["pre_task"] }]\n```\nDo it\n';
    write('prompts/coder-prompt.md', prompt);
    expect(await shown(['agents'])).toEqual([]);
    expect(await shown(['prompts/coder-prompt.md', 'agents'])).toEqual([finding('agents/a.aip', 'stage pre_task')]);
    write('.aipack/.prompt/pro@coder/coder-prompt.md', prompt.replace('pre_task', 'post_task'));
    expect(await shown(['agents'])).toEqual([finding('agents/a.aip', 'stage post_task')]);
  });

  it('a member of a parallel group runs in the group stages and is checked against input.parallel', async () => {
    write('.aipack/config.toml', '');
    write('agents/m.aip', aip('local i = input.parallel.index\nlocal j = input.parallel.indx\nreturn nil').replace('# Data', '# Output'));
    const prompt = '```toml\n#!meta\nsub_agents = [{ parallel = ["agents/m.aip", "agents/m.aip"], stages = ["post"] }]\n```\nDo it\n';
    write('prompts/coder-prompt.md', prompt);
    expect(await shown(['prompts/coder-prompt.md', 'agents'])).toEqual([
      "agents/m.aip:4:26: unknown-field: input.parallel.indx: this table has no field 'indx'; did you mean index?",
    ]);
  });

  it('a broken contract or prompt file only loses the stage', async () => {
    write('agents/a.aip', agent);
    write('agents/a.contract.toml', 'agent = [');
    write('p.md', '```toml\n#!meta\nsub_agents = "nope"\n```\n');
    expect(await shown(['agents', 'p.md'])).toEqual([]);
  });
});
