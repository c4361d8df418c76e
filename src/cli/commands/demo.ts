import type { Command } from 'commander';
import { createTwoFilesPatch } from 'diff';
import { exists, makeTempDir, readText } from '../../support/host-fs.ts';
import nodePath from 'node:path';
import pc from 'picocolors';
import { coderRunReport, describeEffect, type CoderRunReport } from '../../effects/run-report.ts';
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
  pre: 'Before All: the prompt is read, then the `pre` sub-agents may change params and instruction',
  pre_task: 'Data: before each task, `pre_task` sub-agents may change that task',
  post_task: 'Output: after the AI answered, `post_task` sub-agents may check or replace the answer',
  post: 'After All: `post` sub-agents see every answer as applied',
};

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
    out.push(`  ${call.effect.error ? pc.red('✗') : pc.green('✓')} ${call.agent}${task}: ${describeEffect(call.effect)}`);
    const e = call.effect;
    if (e.prompts.changed) for (const seg of e.prompts.after) out.push(pc.dim(`      │ ${firstLine(seg)}`));
    if (e.params.added.length || e.params.changed.length) {
      for (const k of [...e.params.added, ...e.params.changed]) out.push(pc.dim(`      │ ${k} = ${JSON.stringify(e.params.after[k])}`));
    }
    if (call.stage === 'post_task') {
      const ai = r.ai_calls.find((a) => a.task === call.task);
      if (ai) out.push(pc.dim(`      │ AI (${ai.model}) answered ${ai.response.length} chars`));
    }
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
