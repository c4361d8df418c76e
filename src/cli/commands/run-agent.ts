import nodePath from 'node:path';
import { statOf } from '../../support/host-fs.ts';
import { relativeToCwd } from '../../support/paths.ts';
import type { Command } from 'commander';
import { AgentRunError } from '../../runtime/lifecycle/agent-run.ts';
import { UsageError, type SetExit } from '../errors.ts';
import { formatBaseWrites, formatFiles, formatWrittenFiles, formatTrace, hintOf, noAiHint, toJsonValue } from '../format.ts';
import { addSimOptions, simulateCli, withWriteLock, workspaceOf, writeRun, type SimCliOptions } from '../simulate.ts';

interface RunAgentOptions extends SimCliOptions {
  input: string[];
  inputs?: string;
}

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} expects JSON (quote a string: ${flag} '"text"'), got: ${text}`);
  }
}

export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('run-agent <agent>')
    .description('run any agent on the simulated AIPack runtime (the workspace is not modified unless --write)')
    .option('--input <json>', 'one input (JSON); repeatable', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--inputs <json-array>', 'inputs as a JSON array (after the --input values)');
  addSimOptions(cmd).action(async (agent: string, o: RunAgentOptions) => {
    // the workspace first: a missing one is the cause, whatever else is missing in it
    workspaceOf(o);
    requireAgentFile(agent);
    const inputs = o.input.map((v) => parseJson(v, '--input'));
    if (o.inputs !== undefined) {
      const list = parseJson(o.inputs, '--inputs');
      if (!Array.isArray(list)) throw new UsageError(`--inputs expects a JSON array, got: ${o.inputs}`);
      inputs.push(...list);
    }
    await withWriteLock(o.write, workspaceOf(o), async () => {
      // without --trace (or --report) only the base-dir saves are reported from the trace
      const run = await simulateCli(o, { name: agent, inputs, baseDir: process.cwd() }, o.trace || o.report ? undefined : ['file']);
      // the files as they are before --write changes them
      const html = o.report ? await import('../html-report.ts') : undefined;
      const reportFiles = html?.changedFiles(run);
      const { outcome, files } = run;
      // as AIPack, what the stages wrote before a failure stays written: --write writes a failed run's stages too
      const written = o.write ? writeRun(run) : undefined;
      const commitError = written?.failed?.error;
      const error = run.error ?? commitError;
      if (o.json) {
        const out = {
          outputs: toJsonValue(outcome?.outputs),
          after_all: toJsonValue(outcome?.afterAll),
          redo_requested: outcome?.redoRequested ?? false,
          skipped: outcome?.skipped ?? null,
          files,
          ...(written ? { write: { written: written.written, not_written: written.notWritten } } : {}),
          ...(error ? { error: error.message } : {}),
          ...(o.trace ? { trace: run.trace.events } : {}),
        };
        process.stdout.write(JSON.stringify(out, null, 2) + '\n');
      } else {
        if (o.trace) process.stdout.write(formatTrace(run.trace) + '\n');
        if (outcome) {
          if (outcome.skipped !== undefined) process.stdout.write(`skipped: ${outcome.skipped || '(no reason given)'}\n`);
          else {
            process.stdout.write(`outputs: ${JSON.stringify(toJsonValue(outcome.outputs))}\n`);
            process.stdout.write(`after_all: ${JSON.stringify(toJsonValue(outcome.afterAll))}\n`);
            if (outcome.redoRequested) process.stdout.write('redo_requested: true\n');
          }
        }
        // a run that never started (agent not found, ...) has no files to speak of
        if (outcome || !error || files.created.length + files.changed.length + files.deleted.length > 0) {
          const state = !o.write ? 'dry' : run.error ? 'run-failed' : commitError ? 'refused' : 'written';
          const text = written && state !== 'written' ? formatWrittenFiles(files, written, Boolean(run.error)) : formatFiles(files, state);
          process.stdout.write(text + '\n');
        }
        const base = formatBaseWrites(run.trace, run.workspaceDir, o.aipackBase === undefined ? undefined : nodePath.resolve(o.aipackBase));
        if (base) process.stdout.write(base + '\n');
      }
      if (html && o.report) {
        const path = html.writeRunReport(o.report, agent, run, reportFiles ?? [], error);
        (o.json ? process.stderr : process.stdout).write(`HTML report written to ${path}\n`);
      }
      if (error) {
        const where = error instanceof AgentRunError && error.stage ? ` (${error.agent}, ${error.stage})` : '';
        // the report does not repeat the message: it is said here, without the Lua traceback unless --trace
        process.stderr.write(`error: run failed${where}: ${error.message}\n`);
        if (o.trace && error instanceof AgentRunError && error.traceback) process.stderr.write(error.traceback + '\n');
        const hint = noAiHint(error, Boolean(o.ai)) ?? hintOf(error);
        if (hint) process.stderr.write(`hint: ${hint}\n`);
        setExit(1);
      }
    });
  });
}

/**
 * A local agent (not `ns@pack/name`) whose file is missing is a usage error (exit 2, as for any missing file), named
 * before anything runs: the file, `<name>.aip` or `<name>/main.aip`, as AIPack looks for it.
 */
function requireAgentFile(agent: string): void {
  if (agent.includes('@')) return;
  const p = nodePath.resolve(agent);
  const candidates = p.endsWith('.aip') ? [p] : [`${p}.aip`, nodePath.join(p, 'main.aip')];
  if (candidates.some((c) => statOf(c)?.isFile())) return;
  throw new UsageError(`${agent}: no such agent file (looked for ${candidates.map((c) => relativeToCwd(c)).join(', ')})`);
}
