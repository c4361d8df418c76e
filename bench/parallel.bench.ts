/**
 * Parallel groups: what a group of sub-agents saves, and what the group machinery costs.
 *
 * Every scripted model call is taken to wait a fixed 200 ms on the simulator's virtual clock (nothing sleeps): the
 * schedule of the `parallel` run follows AIPack's input_concurrency, so the stage's model wait is shown for a group
 * of 4 at concurrency 4 and 1, and for the same 4 sub-agents as plain entries. Then the CPU cost of the group
 * machinery per member: a group of N against the same N members as plain entries (no latency), per member.
 *
 *   npm run bench -- --parallel
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { ScriptedAi } from '../src/runtime/ai.ts';
import { REPO_PACK } from '../src/runtime/packs.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import type { EngineName } from '../src/engine/engine.ts';
import { loadEngine } from '../src/engine/index.ts';

const LATENCY_MS = 200;

const REVIEWER = `# Data

\`\`\`lua
return { focus = input.agent_config.focus }
\`\`\`

# Instruction

Review for {{data.focus}}.

# Output

\`\`\`lua
return { agent_result = ai_response.content }
\`\`\`
`;

function workspace(): string {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-parallel-'));
  mkdirSync(nodePath.join(ws, '.aipack'));
  mkdirSync(nodePath.join(ws, 'src'));
  writeFileSync(nodePath.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(nodePath.join(ws, 'rev.aip'), REVIEWER);
  return ws;
}

/** A prompt whose `pre` stage runs `n` reviewers: as one group (concurrency c) or as plain entries. */
function prompt(ws: string, name: string, n: number, concurrency: number | 'plain'): string {
  const members = Array.from({ length: n }, (_, i) => `{ name = "rev.aip", focus = "f${i + 1}" }`);
  const subAgents = concurrency === 'plain' ? members.join(', ') : `{ parallel = [${members.join(', ')}], concurrency = ${concurrency} }`;
  const dir = nodePath.join(ws, 'prompts', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    nodePath.join(dir, 'coder-prompt.md'),
    `\`\`\`toml\n#!meta\ncontext_globs = ["src/a.ts"]\nwrite_mode = false\nsub_agents = [${subAgents}]\n\`\`\`\n\nSay hi.\n`,
  );
  return `prompts/${name}`;
}

function runCoder(ws: string, promptDir: string, latency: number, engine: EngineName = 'fengari'): Simulator {
  const ai = ScriptedAi.fromList([
    { agent: 'rev.aip', content: 'fine', reusable: true },
    { agent: 'pro@coder', content: 'Hi.', reusable: true },
  ]);
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], ai, aipackVersion: '0.8.18', simulatedLatencyMs: latency, engine });
  const out = sim.run({ name: 'pro@coder', inputs: [promptDir], baseDir: ws });
  if (out.skipped !== undefined) throw new Error(`the coder run was skipped: ${out.skipped}`);
  return sim;
}

/** The virtual time from the first start to the last end of the tasks of `agent`'s runs (the reviewers' model wait). */
function spanMs(sim: Simulator, agent: (name: string) => boolean): number {
  const slots = sim.trace.of('tasks').filter((e) => agent(e.agent)).flatMap((e) => e.slots);
  return Math.max(...slots.map((s) => s.end)) - Math.min(...slots.map((s) => s.start));
}
const runner = (name: string) => name.endsWith('/parallel');
const reviewer = (name: string) => name === 'rev.aip';

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function medianCpu(runs: number, fn: () => void): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = cpuMs();
    fn();
    samples.push(cpuMs() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

export async function parallelBench(): Promise<void> {
  await loadEngine('lua54');
  const ws = workspace();
  try {
    console.log(`\nParallel groups: 4 reviewers at pre, each model call ${LATENCY_MS} ms (virtual clock)`);
    const rows: [string, number][] = [
      ['group of 4, concurrency 4', spanMs(runCoder(ws, prompt(ws, 'g4c4', 4, 4), LATENCY_MS), runner)],
      ['group of 4, concurrency 2', spanMs(runCoder(ws, prompt(ws, 'g4c2', 4, 2), LATENCY_MS), runner)],
      ['group of 4, concurrency 1', spanMs(runCoder(ws, prompt(ws, 'g4c1', 4, 1), LATENCY_MS), runner)],
      ['4 plain entries (one after another)', spanMs(runCoder(ws, prompt(ws, 'p4', 4, 'plain'), LATENCY_MS), reviewer)],
    ];
    for (const [label, ms] of rows) console.log(`  ${label.padEnd(38)} ${String(ms).padStart(5)} ms  (${(ms / LATENCY_MS).toFixed(1)} model latencies)`);

    console.log('\nGroup machinery, CPU ms (median of 5): a group of N against the same N as plain entries, no latency');
    for (const engine of ['fengari', 'lua54'] as EngineName[]) {
      for (const n of [4, 16]) {
        const group = prompt(ws, `cost-g${n}`, n, 4);
        const plain = prompt(ws, `cost-p${n}`, n, 'plain');
        const g = medianCpu(5, () => void runCoder(ws, group, 0, engine));
        const p = medianCpu(5, () => void runCoder(ws, plain, 0, engine));
        console.log(`  ${engine.padEnd(7)} N = ${String(n).padEnd(3)} group ${g.toFixed(0).padStart(5)} ms, plain ${p.toFixed(0).padStart(5)} ms: +${(g - p).toFixed(0)} ms, ${((g - p) / n).toFixed(2)} ms per member`);
      }
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
