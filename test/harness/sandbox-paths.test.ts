import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStage } from '../../src/harness/run-stage.ts';
import { explainMissingAgent, SANDBOX_WS, sandboxDir, unsandbox } from '../../src/harness/sandbox-paths.ts';
import { tmpDir, write } from './helpers.ts';

describe('the sandbox workspace', () => {
  it('is nested one w dir deeper per .. the agent\'s files climb', () => {
    expect(sandboxDir({ depth: 0 })).toBe(SANDBOX_WS);
    expect(sandboxDir({ depth: 2 })).toBe(`${SANDBOX_WS}/w/w`);
  });
});

describe('unsandbox: messages name files as the case file does', () => {
  it('writes sandbox paths relative to the sandbox workspace, also above it', () => {
    const ws = `${SANDBOX_WS}/w`;
    expect(unsandbox(`Lua error:\n${ws}/agent.aip:19: 'then' expected`, ws)).toBe("Lua error:\nagent.aip:19: 'then' expected");
    expect(unsandbox(`failed '${SANDBOX_WS}/agents/a.aip': (${ws}/x.lua:2)`, ws)).toBe("failed '../agents/a.aip': (x.lua:2)");
    expect(unsandbox(`in ${ws}`, ws)).toBe('in .');
    // a longer name that merely starts like the sandbox is not a sandbox path
    expect(unsandbox(`${SANDBOX_WS}-old/x`, ws)).toBe(`${SANDBOX_WS}-old/x`);
  });

});

describe('explainMissingAgent', () => {
  it('says a sandbox path of a helper agent as the path on disk it stands for, and leaves other paths alone', () => {
    const dir = tmpDir();
    write(dir, 'here.aip', '# Output\n');
    const agent = { name: 'a.aip', file: nodePath.join(dir, 'a.aip') } as Parameters<typeof explainMissingAgent>[2];
    expect(explainMissingAgent(`x (full path: ${SANDBOX_WS}/here.aip)`, SANDBOX_WS, agent)).toBe(
      `x (full path: ${nodePath.join(dir, 'here.aip')}: it exists there, but a case only holds the agent and its support files: list it in the contract file's \`support\` (runStage: \`support\`))`,
    );
    expect(explainMissingAgent('x (full path: /elsewhere/b.aip)', SANDBOX_WS, agent)).toBe('x (full path: /elsewhere/b.aip)');
  });
});

describe('a helper agent the sub-agent runs', () => {
  const caller = '# Output\n\n```lua\naip.agent.run("glob-picker.aip", { inputs = { "x" } })\nreturn nil\n```\n';

  it('missing: the error gives the real full path it looked at and hints at support', () => {
    const dir = tmpDir();
    write(dir, 'picker-user.aip', caller);
    const r = runStage({ agent: 'picker-user.aip', baseDir: dir, stage: 'pre', prompt: 'x' });
    expect(r.error).toContain(
      `(full path: ${nodePath.join(dir, 'glob-picker.aip')}: no such file; a helper agent must exist and be listed in the contract file's \`support\` (runStage: \`support\`))`,
    );
  });

  it('on disk but not in support: says so; with support it runs', () => {
    const dir = tmpDir();
    write(dir, 'picker-user.aip', caller);
    write(dir, 'glob-picker.aip', '# Output\n\n```lua\nreturn "ok"\n```\n');
    const r = runStage({ agent: 'picker-user.aip', baseDir: dir, stage: 'pre', prompt: 'x' });
    expect(r.error).toContain(`(full path: ${nodePath.join(dir, 'glob-picker.aip')}: it exists there, but a case only holds the agent and its support files`);
    expect(runStage({ agent: 'picker-user.aip', baseDir: dir, support: ['glob-picker.aip'], stage: 'pre', prompt: 'x' }).ok).toBe(true);
  });
});
