import type { Command } from 'commander';
import { createTwoFilesPatch } from 'diff';
import { exists, makeTempDir, readText } from '../../support/host-fs.ts';
import nodePath from 'node:path';
import pc from 'picocolors';
import { coderRunReport, describeEffect, type CoderRunReport, type SubAgentCall } from '../../effects/run-report.ts';
import { ScriptedAi } from '../../runtime/ai.ts';
import { REPO_PACK, REPO_ROOT } from '../../runtime/packs.ts';
import { Simulator, type RunOutcome } from '../../runtime/simulator.ts';
import type { Vfs } from '../../support/vfs.ts';
import { requireDir, UsageError, type SetExit } from '../errors.ts';
import { addEngineOption, engineFromOption } from '../engine-flag.ts';
import { formatStatus } from '../format.ts';
import { relativeToCwd } from '../../support/paths.ts';

const DEMO_WORKSPACE = nodePath.join(REPO_ROOT, 'fixtures', 'demo');


export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('demo')
    .description('run the coder with sub-agents at all four stages on fixtures/demo, with scripted answers, and show the pipeline (nothing is written)')
    .option('--workspace <dir>', 'another demo workspace (needs ai.toml and a coder prompt)', DEMO_WORKSPACE)
    .option('--report <file.html>', 'where the HTML report of the run goes (default: report.html in a new temp dir)');
  addEngineOption(cmd)
    .action(async (o: { workspace: string; engine?: string; report?: string }) => {
      const engine = await engineFromOption(o.engine);
      const ws = nodePath.resolve(o.workspace);
      requireDir('--workspace', o.workspace, ws);
      const aiFile = nodePath.join(ws, 'ai.toml');
      if (!exists(aiFile)) throw new UsageError(`${aiFile} not found: the demo needs the scripted answers of its workspace`);
      const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], ai: ScriptedAi.fromToml(readText(aiFile), aiFile), engine });
      let outcome: RunOutcome | undefined;
      let error: Error | undefined;
      try {
        outcome = sim.run({ name: 'pro@coder', baseDir: ws });
      } catch (err) {
        error = err as Error;
      }
      const report = coderRunReport({ coderName: 'pro@coder', trace: sim.trace, files: sim.vfs.changes(), outcome, error });
      process.stdout.write(renderDemo(report, sim.vfs, ws) + '\n');
      // the same run as a page: the timeline, each sub-agent's diffs, the model calls
      const html = await import('../html-report.ts');
      const files = html.filesOf(ws, report.files, (abs) => sim.vfs.readFile(abs));
      // by default outside the repository and the demo workspace, which the demo leaves as they are
      const target = o.report ?? nodePath.join(makeTempDir('coder-subagents-demo-'), 'report.html');
      const page = html.writeRunReport(target, 'pro@coder', { workspaceDir: ws, trace: sim.trace, files: report.files, outcome }, files, error);
      process.stdout.write(`\nHTML report of the run: ${page}\n`);
      if (error) setExit(1);
    });
}

const STAGE_TITLES: Record<string, string> = {
  pre: 'Before All: the prompt is read, then the `pre` sub-agents (and the `start` event) may change params and instruction',
  pre_task: 'Data: before each task, `pre_task` sub-agents may change that task',
  post_task: 'Output: after the AI answered, `post_task` sub-agents may check or replace the answer',
  post: 'After All: `post` sub-agents (and the `end` event) see every answer as applied',
};

/** One line of detail under a sub-agent call, indented under it. */
const detail = (text: string) => pc.dim(`      │ ${text}`);

/**
 * What the demo shows under each sub-agent call, in this order; each returns its lines (none when it has nothing
 * to say). A new kind of detail is one more function here.
 */
/** JSON of a Lua value with its keys sorted: a Lua table has no key order, and the engines iterate differently. */
const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );

const DETAILS: ((call: SubAgentCall, r: CoderRunReport) => string[])[] = [
  // the instruction segments after a change
  (call) => (call.effect.prompts.changed ? call.effect.prompts.after.map((seg) => detail(firstLine(seg))) : []),
  // the params it added or changed
  (call) => [...call.effect.params.added, ...call.effect.params.changed].map((k) => detail(`${k} = ${JSON.stringify(call.effect.params.after[k])}`)),
  // a parallel group: each member, its model calls and its result
  (call) =>
    (call.group?.members ?? []).map((m) => {
      const result = m.result !== undefined ? sortedJson(m.result) : undefined;
      const models = m.models.length ? `${m.models.length} model call${m.models.length === 1 ? '' : 's'} (${[...new Set(m.models)].join(', ')})` : 'no model call';
      return detail(`[${m.index}] ${m.agent}: ${m.error !== undefined ? `failed: ${firstLine(m.error)}` : models}${result ? ` → ${result}` : ''}`);
    }),
  // the model calls of a built-in (auto-context asks code-map, then its own model)
  (call, report) => {
    if (!call.agent.startsWith('pro@coder/')) return [];
    const counts = new Map<string, number>();
    for (const a of report.sub_agent_ai_calls) if (a.agent.startsWith('pro@coder/')) counts.set(`${a.agent} (${a.model})`, (counts.get(`${a.agent} (${a.model})`) ?? 0) + 1);
    return [...counts].map(([who, n]) => detail(`AI ${who}${n > 1 ? ` x${n}` : ''}`));
  },
  // the coder's model call of the task a post_task sub-agent checked
  (call, report) => {
    if (call.stage !== 'post_task') return [];
    const ai = report.ai_calls.find((a) => a.task === call.task);
    return ai ? [detail(`AI (${ai.model}) answered ${ai.response.length} chars`)] : [];
  },
];

/** The demo's story: each stage with its sub-agents and their effects, the AI calls, then every file as a diff. */
function renderDemo(r: CoderRunReport, vfs: Vfs, ws: string): string {
  const out: string[] = [pc.bold(`pro@coder on ${relativeToCwd(ws)} (simulated AIPack, scripted AI)`), ''];
  let lastStage = '';
  for (const call of r.sub_agents) {
    if (call.stage !== lastStage) {
      out.push(pc.bold(pc.cyan(`■ ${STAGE_TITLES[call.stage]}`)));
      lastStage = call.stage;
    }
    const task = call.task !== undefined ? pc.dim(` [task ${call.task}]`) : '';
    const on = call.event !== undefined ? pc.dim(` (on ${call.event})`) : '';
    out.push(`  ${call.effect.error ? pc.red('✗') : pc.green('✓')} ${call.agent}${task}${on}: ${describeEffect(call.effect)}`);
    for (const show of DETAILS) out.push(...show(call, r));
  }
  out.push('');
  out.push(pc.bold('Files the run wrote (kept in memory; the demo workspace is unchanged):'));
  for (const rel of [...r.files.created, ...r.files.changed]) {
    const before = r.files.created.includes(rel) ? '' : (readDisk(nodePath.join(ws, rel)) ?? '');
    const after = vfs.readFile(nodePath.join(ws, rel)) ?? '';
    out.push(pc.yellow(`── ${rel}${r.files.created.includes(rel) ? ' (new)' : ''}`));
    out.push(colourPatch(createTwoFilesPatch(`a/${rel}`, `b/${rel}`, before, after, '', '', { context: 2 })));
  }
  for (const rel of r.files.deleted) out.push(pc.red(`── ${rel} (deleted)`));
  out.push('');
  out.push(formatStatus(r));
  return out.join('\n');
}

/** The first line of a text, with `…` when there is more. */
function firstLine(text: string): string {
  const [first, ...rest] = text.split('\n');
  return rest.some((l) => l.trim() !== '') ? `${first} …` : first;
}

function readDisk(abs: string): string | undefined {
  return exists(abs) ? readText(abs) : undefined;
}

function colourPatch(patch: string): string {
  return patch
    .split('\n')
    .slice(3) // the ===, --- and +++ header lines repeat the file name
    .map((l) => (l.startsWith('+') ? pc.green(l) : l.startsWith('-') ? pc.red(l) : l.startsWith('@@') ? pc.cyan(l) : l))
    .join('\n');
}
