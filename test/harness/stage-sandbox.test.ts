import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { DRIVER_FILE } from '../../src/harness/driver.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { SANDBOX_WS } from '../../src/harness/sandbox-paths.ts';
import { buildSandbox } from '../../src/harness/stage-sandbox.ts';
import { AGENTS } from './helpers.ts';

const at = (agent: string) => ({ agent, baseDir: AGENTS });

describe('buildSandbox', () => {
  it('a virtual workspace: the agent, the case files, prev stand-ins, and the driver inside the coder pack', () => {
    const agent = prepareAgent('lister.aip', AGENTS);
    const box = buildSandbox(agent, { files: { 'src/a.ts': 'a' }, prev: [{ name: 'earlier.aip', agent_result: { n: 1 } }] }, { stage: 'pre' }, {});
    expect(box.ws).toBe(SANDBOX_WS);
    expect(box.vfs.readFile(`${SANDBOX_WS}/src/a.ts`)).toBe('a');
    expect(box.vfs.readFile(`${SANDBOX_WS}/lister.aip`)).toContain('# Output');
    expect(box.vfs.readFile(`${SANDBOX_WS}/earlier.aip`)).toMatch(/return \{ agent_result = aip\.json\.parse\(\[\[\n\{"n":1\}\]\]\) \}/);
    expect(box.vfs.readFile(nodePath.join(agent.pack.dir, DRIVER_FILE))).toContain('require("utils_sub_agent")');
    expect(box.driverName).toBe('pro@coder/__contract_driver__');
  });

  it('refuses a prev naming the agent under test, and a redo_count older AIPack versions lack', () => {
    const agent = prepareAgent('lister.aip', AGENTS);
    expect(() => buildSandbox(agent, { prev: [{ name: 'lister.aip' }] }, { stage: 'pre' }, {})).toThrow(/^prev\[1\]\.name: 'lister\.aip' is the agent under test/);
    expect(() => buildSandbox(agent, { redo_count: 1 }, { stage: 'post' }, { aipackVersion: '0.8.15' })).toThrow(/^redo_count: CTX\.RUN_FLOW_REDO_COUNT exists from AIPack 0\.8\.22 on/);
  });

  it('the sandbox holds only the case files plus the agent and its lua/ dir', () => {
    const r = runStage({ ...at('lister.aip'), prompt: 'List', files: { 'src/a.ts': 'a', 'README.md': 'r' } });
    expect(r.ok).toBe(true);
    expect([...r.prompts].sort()).toEqual(['List', 'README.md', 'lister.aip', 'lua/refine.lua', 'src/a.ts'].sort());
    const ws = SANDBOX_WS;
    expect(r.rawResponse).toEqual({ coder_prompts: r.prompts, agent_result: `${ws}/.aipack/.prompt/pro@coder` });
  });
});
