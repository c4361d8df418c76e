import type { Command } from 'commander';
import { exists } from '../../support/host-fs.ts';
import nodePath from 'node:path';
import pc from 'picocolors';
import { coderRunReport, describeEffect, headline, type CoderRunReport, type GroupStep, type Pin } from '../../effects/run-report.ts';
import { AgentRunError } from '../../runtime/lifecycle/agent-run.ts';
import type { SetExit } from '../errors.ts';
import { escapeControls, escapeLine } from '../../support/terminal-text.ts';
import { noAnswerHint } from '../builtin-answers.ts';
import { errorLine, formatFiles, formatStatus, formatTrace, formatWrittenFiles, hintOf, noAiHint, toJsonValue, truncate, type FilesState, type WrittenFiles } from '../format.ts';
import { addSimOptions, simulateCli, withWriteLock, workspaceOf, writeRun, type SimCliOptions } from '../simulate.ts';

const CODER = 'pro@coder';

export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('run [prompt-dir]')
    .description('run pro@coder as `aip run pro@coder [-i PROMPT_DIR]` would, on the simulated runtime, and show what each sub-agent did');
  addSimOptions(cmd).action(async (promptDir: string | undefined, o: SimCliOptions) => {
    const workspaceDir = workspaceOf(o);
    if (!o.workspace && !exists(nodePath.join(workspaceDir, '.aipack'))) {
      // the run goes on (it creates the prompt file), but the user is probably in the wrong directory
      process.stderr.write(
        `note: no .aipack/ directory in ${workspaceDir} or above: it is used as the workspace (cd into your project, or pass --workspace DIR)\n`,
      );
    }
    // with --write the lock spans the run: the prompt file read at the start is the one written at the end
    await withWriteLock(o.write, workspaceDir, async () => {
      const run = await simulateCli(o, { name: CODER, inputs: promptDir ? [promptDir] : undefined, baseDir: process.cwd() });
      // the files as they are before --write changes them
      const html = o.report ? await import('../html-report.ts') : undefined;
      const reportFiles = html?.changedFiles(run);
      // as AIPack, what the stages wrote before a failure stays written: --write writes a failed run's stages too
      const written = o.write ? writeRun(run) : undefined;
      const commitError = written?.failed?.error;
      const error = run.error ?? commitError;
      const report = coderRunReport({ coderName: CODER, trace: run.trace, files: run.files, outcome: run.outcome, error });
      const failedAgent = report.sub_agents.find((c) => c.effect.error !== undefined);
      // a failing `pre` sub-agent only skips the run in AIPack (exit 0 there); here it is the failure being looked for,
      // and so is any other skip (bad meta block, bad sub_agents, bad options): only an empty instruction is a plain skip
      const badSkip = !error && report.status === 'skipped' && !/^Empty instruction/.test(report.message ?? '');
      const cause = error
        ? errorLine(error.message)
        : failedAgent && report.status === 'skipped'
          ? errorLine(report.message ?? '')
          : badSkip
            ? `the run was skipped (exit 1; AIPack would only skip, but nothing the prompt file asks was done): ${headline(report.message ?? '')}`
            : undefined;
      const files: FilesState = !o.write ? 'dry' : run.error ? 'run-failed' : commitError ? 'refused' : 'written';
      if (o.json) {
        const write = written && { written: written.written, not_written: written.notWritten };
        const json = toJsonValue({ ...report, ...(write ? { write } : {}), ...(o.trace ? { trace: run.trace.events } : {}) });
        process.stdout.write(JSON.stringify(json, null, 2) + '\n');
      } else {
        if (o.trace) process.stdout.write(formatTrace(run.trace) + '\n\n');
        process.stdout.write(formatReport(report, files, written, Boolean(run.error)) + '\n');
      }
      if (html && o.report) {
        const path = html.writeRunReport(o.report, CODER, run, reportFiles ?? [], error);
        (o.json ? process.stderr : process.stdout).write(`HTML report written to ${path}\n`);
      }
      // the cause on stderr, one line, whatever stdout holds; the Lua traceback into the pack only when asked for
      if (cause) process.stderr.write(`error: ${cause}\n`);
      if (error && o.trace && error instanceof AgentRunError && error.traceback) process.stderr.write(error.traceback + '\n');
      const hint = noAiHint(error, Boolean(o.ai)) ?? hintOf(error);
      if (hint) process.stderr.write(`hint: ${hint}\n`);
      // a sub-agent's model call with no scripted answer (a built-in's too, whose failure the run survives): what
      // to script and the prompt it would get, readable, without --trace
      if (!o.json) {
        const seen = new Set<string>();
        for (const c of report.sub_agents) {
          const more = c.effect.error !== undefined ? noAnswerHint(c.effect.error) : undefined;
          if (more && !seen.has(c.agent)) process.stderr.write(`hint: ${escapeControls(more)}\n`);
          seen.add(c.agent);
        }
      }
      if (cause || failedAgent) setExit(1);
    });
  });
}

/** A parallel group as one step, its members side by side: outcome, model calls and time of each. */
function formatGroup(g: GroupStep, mark: string): string[] {
  const failed = g.members.filter((m) => m.error !== undefined).length;
  const counts = `${g.members.length - failed} succeeded${failed ? `, ${failed} failed` : ''}`;
  const out = [`  ${failed === g.members.length ? pc.red('✗') : mark} parallel group [${g.index}]: ${g.members.length} members, concurrency ${g.concurrency}: ${counts}`];
  const width = Math.max(...g.members.map((m) => m.agent.length));
  for (const m of g.members) {
    const calls = m.models.length ? `model calls: ${m.models.length} (${[...new Set(m.models)].join(', ')})` : 'no model call';
    const status = m.error !== undefined ? pc.red(`failed: ${headline(m.error)}`) : pc.green('ok');
    out.push(`    [${m.index}] ${m.agent.padEnd(width)}  ${calls}  ${pc.dim(`${m.ms.toFixed(1)} ms`)}  ${status}`);
  }
  return out;
}

/** AIPack's width of a pin's label column: the label right-aligned in at least 10 characters. */
const PIN_LABEL_MIN = 10;

/**
 * The pins as AIPack's terminal shows them: the label right-aligned, one space, the content (its later lines
 * under the first), an empty line after each; each redo run's pins under their own heading.
 */
export function formatPins(pins: readonly Pin[]): string[] {
  if (pins.length === 0) return [];
  const lines: string[] = [];
  const runs = new Set(pins.map((p) => p.run));
  let run = -1;
  for (const p of pins) {
    if (p.run !== run) {
      run = p.run;
      lines.push(pc.bold(runs.size > 1 ? `pins of ${run === 0 ? 'the first run' : `redo ${run}`}:` : 'pins:'));
    }
    // a pin's text comes from agents: its control characters are shown, never sent to the terminal
    const label = escapeLine(p.label);
    const width = Math.max(PIN_LABEL_MIN, [...label].length);
    const [first = '', ...rest] = p.content.replace(/\t/g, '    ').split('\n').map((l) => escapeLine(l));
    lines.push(`${pc.cyan(label.padStart(width))} ${first}`.trimEnd());
    for (const l of rest) lines.push(`${' '.repeat(width + 1)}${l}`.trimEnd());
    lines.push('');
  }
  return lines;
}

/** The human-readable report: stage by stage, each sub-agent and its effect, the AI calls, the files. */
function formatReport(r: CoderRunReport, files: FilesState, written?: WrittenFiles, runFailed = false): string {
  const lines: string[] = [];
  let lastHeading = '';
  for (const call of r.sub_agents) {
    const stage = call.task !== undefined ? `${call.stage} (task ${call.task})` : call.stage;
    const heading = call.redo !== undefined ? `${stage} [redo ${call.redo}]` : stage;
    if (heading !== lastHeading) {
      lines.push(pc.bold(`stage ${heading}`));
      lastHeading = heading;
    }
    const mark = call.effect.error ? pc.red('✗') : pc.green('✓');
    if (call.group) {
      lines.push(...formatGroup(call.group, mark));
      continue;
    }
    lines.push(`  ${mark} ${call.agent}: ${describeEffect(call.effect)}`);
  }
  if (r.sub_agents.length === 0) lines.push(pc.dim('no sub-agent ran'));
  // the sub-agents' model calls, one line per run of the same agent and model
  for (let i = 0; i < r.sub_agent_ai_calls.length; ) {
    const { agent, model } = r.sub_agent_ai_calls[i]!;
    let n = 1;
    while (r.sub_agent_ai_calls[i + n]?.agent === agent && r.sub_agent_ai_calls[i + n]?.model === model) n++;
    lines.push(`${pc.magenta('AI')} ${agent} (${model})${n > 1 ? ` x${n}` : ''}`);
    i += n;
  }
  for (const ai of r.ai_calls) {
    const first = ai.response.split('\n').find((l) => l.trim()) ?? '';
    lines.push(`${pc.magenta('AI')} task ${ai.task} (${ai.model}): ${truncate(first, 70)}`);
  }
  lines.push(...formatPins(r.pins));
  lines.push(written && files !== 'written' ? formatWrittenFiles(r.files, written, runFailed) : formatFiles(r.files, files));
  if (r.failed_changes.length > 0) {
    lines.push(pc.red('changes not applied:'));
    for (const f of r.failed_changes) lines.push(`  ${f.file}: ${f.cause}`);
  }
  for (const w of r.warnings) lines.push(`${pc.yellow('warning')}: ${w}`);
  if (r.redos > 0) lines.push(`${pc.bold(`redo ${r.redos}`)}: the coder ran ${r.redos + 1} times (aip.flow.redo_run); the files and prompt file are the last run's`);
  // the coder's own message usually names the prompt file already
  if (r.prompt_file && !r.message?.includes(r.prompt_file)) lines.push(`prompt file: ${r.prompt_file}`);
  lines.push(formatStatus(r));
  return lines.join('\n');
}
