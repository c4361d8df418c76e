/**
 * Prints what the simulated runtime costs: a fresh Lua state, one trivial aip.agent.run, a 100-sub-agent chain.
 * Not a test: figures depend on the machine. Run with `npm run bench`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fengariEngine } from '../src/engine/fengari-engine.ts';
import { Simulator } from '../src/runtime/simulator.ts';

const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-ws-'));
mkdirSync(nodePath.join(ws, '.aipack'));
writeFileSync(nodePath.join(ws, 'noop.aip'), '# After All\n\n```lua\nreturn 1\n```\n');
writeFileSync(nodePath.join(ws, 'leaf.aip'), '# Output\n\n```lua\nreturn input + 1\n```\n');
writeFileSync(nodePath.join(ws, 'one-call.aip'), '# After All\n\n```lua\nreturn aip.agent.run("leaf", { input = 1 }).outputs[1]\n```\n');
writeFileSync(
  nodePath.join(ws, 'chain.aip'),
  '# After All\n\n```lua\nlocal v = 0\nfor i = 1, 100 do\n  v = aip.agent.run("leaf", { input = v }).outputs[1]\nend\nreturn v\n```\n',
);

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function measure(label: string, runs: number, fn: () => void): void {
  for (let i = 0; i < Math.min(20, runs); i++) fn(); // warm the JIT
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  const p90 = [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.9)];
  console.log(`${label.padEnd(48)} median ${median(samples).toFixed(2).padStart(8)} ms   p90 ${p90.toFixed(2).padStart(8)} ms   (${runs} runs)`);
}

const stateOptions = {
  budget: 1e8,
  budgetMessage: 'budget',
  moduleDirs: [],
  readFile: () => undefined,
  loadRoots: [ws],
  baseDir: ws,
  print: () => {},
  displayPath: (p: string) => p,
};

console.log(`node ${process.version}, engine ${fengariEngine.name} (${fengariEngine.luaVersion})`);
measure('fresh Lua state (sandboxed libs only)', 200, () => fengariEngine.createState(stateOptions).close());
measure('agent with one stage (state + aip.* + prelude)', 200, () => {
  new Simulator({ workspaceDir: ws }).run({ name: 'noop', baseDir: ws });
});
measure('one trivial aip.agent.run (caller + 1 sub-agent)', 100, () => {
  const v = new Simulator({ workspaceDir: ws }).run({ name: 'one-call', baseDir: ws }).afterAll;
  if (v !== 2) throw new Error(`unexpected result ${String(v)}`);
});
measure('100-sub-agent chain (100 sequential calls)', 10, () => {
  const v = new Simulator({ workspaceDir: ws }).run({ name: 'chain', baseDir: ws }).afterAll;
  if (v !== 100) throw new Error(`unexpected result ${String(v)}`);
});
rmSync(ws, { recursive: true, force: true });
