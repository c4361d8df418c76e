import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import pc from 'picocolors';
import { coderRunReport, describeEffect, type CoderRunReport } from '../../effects/run-report.ts';
import { CommitError } from '../../runtime/commit.ts';
import { AgentRunError } from '../../runtime/simulator.ts';
import type { SetExit } from '../errors.ts';
import { formatFiles, formatStatus, formatTrace, noAiHint, toJsonValue, truncate } from '../format.ts';
import { addSimOptions, simulateCli, withWriteLock, workspaceOf, writeRun, type SimCliOptions } from '../sim-options.ts';

const CODER = 'pro@coder';

export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('run [prompt-dir]')
    .description('run pro@coder as `aip run pro@coder [-i PROMPT_DIR]` would, on the simulated runtime, and show what each sub-agent did');
  addSimOptions(cmd).action(async (promptDir: string | undefined, o: SimCliOptions) => {
    const workspaceDir = workspaceOf(o);
    if (!o.workspace && !existsSync(nodePath.join(workspaceDir, '.aipack'))) {
      // the run goes on (it creates the prompt file), but the user is probably in the wrong directory
      process.stderr.write(
        `note: no .aipack/ directory in ${workspaceDir} or above: it is used as the workspace (cd into your project, or pass --workspace DIR)\n`,
      );
    }
    // with --write the lock spans the run: the prompt file read at the start is the one written at the end
    await withWriteLock(o.write, workspaceDir, async () => {
      const run = await simulateCli(o, { name: CODER, inputs: promptDir ? [promptDir] : undefined, baseDir: process.cwd() });
      let error = run.error;
      if (!error && o.write) error = writeRun(run);
      const written = o.write && error instanceof CommitError ? 'failed' : !error && Boolean(o.write);
      const report = coderRunReport({ coderName: CODER, trace: run.trace, files: run.files, outcome: run.outcome, error });
      const hint = noAiHint(error, Boolean(o.ai));
      if (o.json) {
        const json = toJsonValue({ ...report, ...(o.trace ? { trace: run.trace.events } : {}) });
        process.stdout.write(JSON.stringify(json, null, 2) + '\n');
        // stdout is for the machine: the reason goes to stderr as well
        if (error) process.stderr.write(`run failed: ${error.message}\n`);
      } else {
        if (o.trace) process.stdout.write(formatTrace(run.trace) + '\n\n');
        // the report ends with the failure message: not repeated on stderr
        process.stdout.write(formatReport(report, written) + '\n');
      }
      if (error) {
        if (error instanceof AgentRunError && error.traceback) process.stderr.write(error.traceback + '\n');
        if (hint) process.stderr.write(`hint: ${hint}\n`);
        setExit(1);
      }
      // a failing `pre` sub-agent only skips the run in AIPack (exit 0 there); here it is the failure being looked for
      if (report.sub_agents.some((c) => c.effect.error !== undefined)) setExit(1);
      // so is any other skip (bad meta block, bad sub_agents, bad options): only an empty instruction is a plain skip
      if (!error && report.status === 'skipped' && !/^Empty instruction/.test(report.message ?? '')) {
        if (o.json) process.stderr.write(`run skipped: ${(report.message ?? '').split('\n')[0]}\n`);
        process.stderr.write('exit 1: the run was skipped, so nothing the prompt file asks was done (AIPack would only skip)\n');
        setExit(1);
      }
    });
  });
}

/** The human-readable report: stage by stage, each sub-agent and its effect, the AI calls, the files. */
function formatReport(r: CoderRunReport, written: boolean | 'failed'): string {
  const lines: string[] = [];
  let lastHeading = '';
  for (const call of r.sub_agents) {
    const heading = call.task !== undefined ? `${call.stage} (task ${call.task})` : call.stage;
    if (heading !== lastHeading) {
      lines.push(pc.bold(`stage ${heading}`));
      lastHeading = heading;
    }
    const mark = call.effect.error ? pc.red('✗') : pc.green('✓');
    lines.push(`  ${mark} ${call.agent}: ${describeEffect(call.effect)}`);
  }
  if (r.sub_agents.length === 0) lines.push(pc.dim('no sub-agent ran'));
  for (const ai of r.ai_calls) {
    const first = ai.response.split('\n').find((l) => l.trim()) ?? '';
    lines.push(`${pc.magenta('AI')} task ${ai.task} (${ai.model}): ${truncate(first, 70)}`);
  }
  lines.push(formatFiles(r.files, written));
  // the coder's own message usually names the prompt file already
  if (r.prompt_file && !r.message?.includes(r.prompt_file)) lines.push(`prompt file: ${r.prompt_file}`);
  lines.push(formatStatus(r));
  return lines.join('\n');
}
