/**
 * `run --report` and `run-agent --report`: the run's HTML report (src/report/), written to the file the flag
 * names. Loaded only when asked for (the tokenizer's tables take a moment to load).
 */
import nodePath from 'node:path';
import { coderRunReport } from '../effects/run-report.ts';
import { addTokens } from '../report/tokens.ts';
import { reportPage } from '../report/page.ts';
import { runView, type ChangedFile } from '../report/run-view.ts';
import { makeUserDir, readIfFile, writeUserFile } from '../support/host-fs.ts';
import { relativeToCwd } from '../support/paths.ts';
import type { FileChanges } from '../support/vfs.ts';
import type { CliRun } from './simulate.ts';

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8'));

/**
 * The files the run changed, with their contents on disk (before) and in the run (`after`). Read before `--write`
 * writes them; a failed run has no contents to show, only the names.
 */
export function filesOf(workspaceDir: string, files: FileChanges, after: (abs: string) => string | undefined): ChangedFile[] {
  const out: ChangedFile[] = [];
  for (const [list, status] of [[files.created, 'created'], [files.changed, 'changed'], [files.deleted, 'deleted']] as const) {
    for (const rel of list) {
      const abs = nodePath.resolve(workspaceDir, rel);
      out.push({
        path: rel,
        before: status === 'created' ? undefined : (text(readIfFile(abs)) ?? ''),
        after: status === 'deleted' ? undefined : (after(abs) ?? ''),
      });
    }
  }
  return out;
}

/** `filesOf` a run of the CLI: the contents after are those it would write. */
export function changedFiles(run: CliRun): ChangedFile[] {
  const after = new Map(run.batches.flatMap((b) => b.changes).map(([abs, data]) => [abs, data]));
  return filesOf(run.workspaceDir, run.files, (abs) => text(after.get(abs) ?? undefined));
}

/** Writes the HTML report of `run` (of agent `agent`) to `file`; returns the path as the user knows it. */
export function writeRunReport(file: string, agent: string, run: Pick<CliRun, 'workspaceDir' | 'trace' | 'files' | 'outcome'>, files: ChangedFile[], error?: Error): string {
  const report = coderRunReport({ coderName: agent, trace: run.trace, files: run.files, outcome: run.outcome, error });
  const view = runView({
    title: `${agent} on ${relativeToCwd(run.workspaceDir) || '.'}`,
    status: report.status,
    message: report.message,
    events: run.trace.events,
    coder: { name: agent, report },
    files,
    notApplied: report.failed_changes,
    warnings: report.warnings,
  });
  const abs = nodePath.resolve(file);
  makeUserDir(nodePath.dirname(abs));
  writeUserFile(abs, reportPage({ kind: 'run', run: addTokens(view) }));
  return relativeToCwd(abs);
}
