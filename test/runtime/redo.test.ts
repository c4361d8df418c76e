/**
 * aip.flow.redo_run() from a top-level run: the simulator runs the agent again with the same inputs and
 * CTX.RUN_FLOW_REDO_COUNT one higher, as AIPack's executor does, and stops a loop that never ends (sandbox rule).
 */
import { describe, expect, it } from 'vitest';
import { Trace } from '../../src/aip/support/trace.ts';
import { MAX_SIMULATED_REDOS, runWithRedos } from '../../src/runtime/redo.ts';
import { AgentRunError, RunLimitError, Simulator } from '../../src/runtime/simulator.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';

const WS = '/home/user/redo-ws';

function simWith(agent: string, aipackVersion = '0.8.33') {
  const vfs = createOverlayVfs(WS, { files: { [`${WS}/again.aip`]: agent }, diskless: ['/home/user'] });
  return new Simulator({ workspaceDir: WS, vfs, aipackVersion, readRoots: [WS] });
}

// logs what each run saw (Before All count as a number, the task's as a string), and redoes while count < limit
const agent = (limit: number) => `# Before All

\`\`\`lua
aip.file.append("log.txt", "ba " .. math.type(CTX.RUN_FLOW_REDO_COUNT) .. " " .. CTX.RUN_FLOW_REDO_COUNT .. " " .. inputs[1] .. "\\n")
\`\`\`

# Output

\`\`\`lua
aip.file.append("log.txt", "task " .. type(CTX.RUN_FLOW_REDO_COUNT) .. " " .. CTX.RUN_FLOW_REDO_COUNT .. "\\n")
return "out"
\`\`\`

# After All

\`\`\`lua
if CTX.RUN_FLOW_REDO_COUNT < ${limit} then return aip.flow.redo_run() end
return "done after " .. CTX.RUN_FLOW_REDO_COUNT
\`\`\`
`;

describe('aip.flow.redo_run() at the top level', () => {
  it('runs the agent again with the same inputs and the count one higher, until a run does not ask', () => {
    const sim = simWith(agent(2));
    const outcome = sim.run({ name: 'again.aip', inputs: ['in-1'], baseDir: WS });
    expect(outcome.redos).toBe(2);
    expect(outcome.redoRequested).toBe(false);
    expect(outcome.afterAll).toBe('done after 2');
    expect(sim.vfs.readFile(`${WS}/log.txt`)).toBe(
      'ba integer 0 in-1\ntask string 0\nba integer 1 in-1\ntask string 1\nba integer 2 in-1\ntask string 2\n',
    );
    expect(sim.trace.of('redo').map((e) => [e.agent, e.num])).toEqual([
      ['again.aip', 1],
      ['again.aip', 2],
    ]);
    expect(sim.trace.of('agent_end').map((e) => e.status)).toEqual(['redo', 'redo', 'completed']);
  });

  it('a loop that never stops fails loudly after 100 redo runs', () => {
    const sim = simWith(agent(1000));
    expect(() => sim.run({ name: 'again.aip', inputs: ['x'], baseDir: WS })).toThrow(AgentRunError);
    expect(() => simWith(agent(1000)).run({ name: 'again.aip', inputs: ['x'], baseDir: WS })).toThrow(
      'again.aip asked for a redo after 100 redo runs: the simulator stops the loop here (AIPack would go on)',
    );
  });

  // AIPack starts a new run for each redo, so each gets its own instruction budget (about 2M instructions a run
  // here, 2 per loop turn on both engines); a redo loop still ends on the simulator's cap
  const busy = (turns: number, redos: number) => `# After All

\`\`\`lua
local n = 0
for i = 1, ${turns} do n = n + i end
if CTX.RUN_FLOW_REDO_COUNT < ${redos} then return aip.flow.redo_run() end
return "done after " .. CTX.RUN_FLOW_REDO_COUNT
\`\`\`
`;
  const busyRun = (turns: number, redos: number) => {
    const vfs = createOverlayVfs(WS, { files: { [`${WS}/busy.aip`]: busy(turns, redos) }, diskless: ['/home/user'] });
    const sim = new Simulator({ workspaceDir: WS, vfs, aipackVersion: '0.8.33', readRoots: [WS], budget: 3_000_000 });
    return () => sim.run({ name: 'busy.aip', inputs: [], baseDir: WS });
  };

  it('each redo run gets a fresh instruction budget, as each is a new run in AIPack', () => {
    expect(busyRun(1_000_000, 2)().afterAll).toBe('done after 2');
    // the same work in one run is over the budget: the budget is really spent per run
    expect(busyRun(3_000_000, 0)).toThrow(RunLimitError);
  });
});

describe('runWithRedos: the cap, counted', () => {
  // a run that asks for a redo while its count is below `asks`; the counts it was run with
  const loop = (asks: number) => {
    const counts: number[] = [];
    const trace = new Trace();
    const run = () => runWithRedos('again.aip', trace, (n) => (counts.push(n), { redoRequested: n < asks }));
    return { counts, trace, run };
  };

  it('runs MAX_SIMULATED_REDOS redo runs when the last of them stops asking', () => {
    const { counts, trace, run } = loop(MAX_SIMULATED_REDOS);
    expect(run().redos).toBe(MAX_SIMULATED_REDOS);
    expect(counts).toEqual(Array.from({ length: MAX_SIMULATED_REDOS + 1 }, (_, i) => i));
    expect(trace.of('redo').map((e) => e.num)).toEqual(Array.from({ length: MAX_SIMULATED_REDOS }, (_, i) => i + 1));
  });

  it('fails when the run after MAX_SIMULATED_REDOS redo runs asks again, without starting another', () => {
    const { counts, trace, run } = loop(MAX_SIMULATED_REDOS + 1);
    expect(run).toThrow(`again.aip asked for a redo after ${MAX_SIMULATED_REDOS} redo runs: the simulator stops the loop here (AIPack would go on)`);
    expect(counts).toHaveLength(MAX_SIMULATED_REDOS + 1);
    expect(counts.at(-1)).toBe(MAX_SIMULATED_REDOS);
    expect(trace.of('redo')).toHaveLength(MAX_SIMULATED_REDOS);
  });

  it('runs once, with no redo event, when the first run does not ask', () => {
    const { counts, trace, run } = loop(0);
    expect(run().redos).toBe(0);
    expect(counts).toEqual([0]);
    expect(trace.of('redo')).toEqual([]);
  });
});
