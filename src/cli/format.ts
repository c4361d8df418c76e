import nodePath from 'node:path';
import pc from 'picocolors';
import { headline, type CoderRunReport } from '../effects/run-report.ts';
import type { Trace, TraceEvent } from '../aip/support/trace.ts';
import type { FileChanges } from '../support/vfs.ts';
import { escapeControls, escapeLine } from '../support/terminal-text.ts';

/** JSON for the CLI: Lua nil (undefined) becomes null everywhere, including list holes. */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) return Array.from(value, (v) => toJsonValue(v));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toJsonValue(v)]));
  }
  return value;
}

const ms = (n: number) => `${n.toFixed(1)}ms`;

function describe(e: TraceEvent): string | undefined {
  switch (e.kind) {
    case 'agent_start':
      return `${pc.bold('agent')} ${e.agent} ${pc.dim(`(${e.file}, ${e.inputs} input${e.inputs === 1 ? '' : 's'})`)}`;
    case 'agent_end':
      return `${pc.bold('end')} ${e.agent}: ${e.status === 'failed' ? pc.red(e.status) : e.status}${e.reason ? ` (${headline(e.reason)})` : ''} ${pc.dim(ms(e.ms))}`;
    case 'stage':
      return `  ${e.stage}${e.task ? ` #${e.task}` : ''} ${pc.dim(`${ms(e.ms)}, ~${e.instructions} instr`)}${e.error ? ' ' + pc.red(headline(e.error)) : ''}`;
    case 'agent_call':
      return `  ${pc.cyan('aip.agent.run')} ${e.agent}${e.error ? ' ' + pc.red(headline(e.error)) : ''} ${pc.dim(ms(e.ms))}`;
    case 'ai': {
      // every part sent, with its cache mark, so a user can compare with what upstream pro@coder sends
      const parts = e.parts.map(
        (p, i) =>
          `\n${'  '.repeat(e.depth)}    part ${i + 1}/${e.parts.length} ${p.role}${p.cache ? ' ' + pc.green('[cache]') : ''} ` +
          (p.attachment
            ? `${pc.cyan('attachment')} ${p.attachment.name} ${pc.dim(`(${p.attachment.kind}, ${p.attachment.size} bytes${p.attachment.title ? `, ${JSON.stringify(p.attachment.title)}` : ''})`)}`
            : `${pc.dim(`${p.content.length} chars`)}: ${JSON.stringify(truncate(p.content.trim(), 70))}`),
      );
      return `  ${pc.magenta('AI')} task #${e.task} model ${e.model}: ${JSON.stringify(truncate(e.response, 60))}${parts.join('')}`;
    }
    case 'pin':
      return `  pin ${e.scope} ${e.iden}: ${truncate(typeof e.content === 'string' ? e.content : JSON.stringify(e.content), 60)}`;
    case 'label':
      return `  label ${e.scope}: ${e.label}`;
    case 'file':
      return `  ${pc.yellow(e.op)} ${e.path}`;
    case 'print':
      return `  ${pc.dim('print')} ${truncate(e.text, 100)}`;
    case 'redo':
      return pc.bold(`redo ${e.num}`) + pc.dim(` ${e.agent} asked for a new run (aip.flow.redo_run): CTX.RUN_FLOW_REDO_COUNT = ${e.num}`);
    case 'tasks':
      // a schedule is worth a line only when tasks ran beside each other
      return e.concurrency > 1 ? `  ${pc.dim(`tasks ${e.slots.length} at input_concurrency ${e.concurrency}`)}` : undefined;
    case 'note':
      return e.topic === 'warning' ? `  ${pc.yellow('warning')} ${String(e.data)}` : undefined;
  }
}

/** At most `n` characters on one line (newlines shown as ⏎). */
export const truncate = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s).replace(/\n/g, '⏎');

/** One line per trace event, indented by agent nesting depth. */
export function formatTrace(trace: Trace): string {
  const lines: string[] = [];
  for (const e of trace.events) {
    // agent names, paths, errors and printed text come from agents: their control characters are shown escaped
    const safe = Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'string' ? escapeLine(v) : v])) as TraceEvent;
    const text = describe(safe);
    if (text !== undefined) lines.push('  '.repeat(e.depth) + text);
  }
  return lines.join('\n');
}

/** What became of a run's files: a dry run, written, or not written because the run failed or the commit was refused. */
export type FilesState = 'dry' | 'written' | 'run-failed' | 'refused';

const NOT_WRITTEN: Record<FilesState, string> = {
  dry: ' (not written; use --write)',
  written: '',
  'run-failed': ' (not written: the run failed)',
  refused: ' (not written: --write refused the changes, see the error)',
};

/** What `--write` wrote of a run (cli/simulate.ts writeRun): the paths written and not, and the failed stage. */
export interface WrittenFiles {
  written: string[];
  notWritten: string[];
  failed?: { stage: string; error: Error };
}

/**
 * The files of a `--write` run that failed, or whose writing failed: those written (AIPack writes a file when a
 * stage saves it, so what the stages before a failure saved stays written) and those not, with why not.
 */
export function formatWrittenFiles(files: FileChanges, w: WrittenFiles, runFailed: boolean): string {
  if (w.written.length === 0) return formatFiles(files, runFailed && !w.failed ? 'run-failed' : 'refused');
  const lines = (paths: Set<string>) => {
    const out: string[] = [];
    for (const p of files.created) if (paths.has(p)) out.push(`  ${pc.green('created')} ${escapeLine(p)}`);
    for (const p of files.changed) if (paths.has(p)) out.push(`  ${pc.yellow('changed')} ${escapeLine(p)}`);
    for (const p of files.deleted) if (paths.has(p)) out.push(`  ${pc.red('deleted')} ${escapeLine(p)}`);
    return out;
  };
  const why = runFailed ? 'the run failed: as in AIPack, what its stages saved before the failure stays written' : 'written stage by stage';
  const out = [`files written ${pc.dim(`(${why})`)}:`, ...lines(new Set(w.written))];
  if (w.failed) {
    const cause = w.failed.error.message.split('\n').find((l) => l.trim()) ?? '';
    out.push(`files not written ${pc.dim(`(the writes of ${w.failed.stage} and later: ${escapeLine(cause)})`)}:`, ...lines(new Set(w.notWritten)));
  }
  return out.join('\n');
}

export function formatFiles(files: FileChanges, state: FilesState): string {
  const lines: string[] = [];
  const verb = state === 'written' ? '' : pc.dim(NOT_WRITTEN[state]);
  for (const p of files.created) lines.push(`  ${pc.green('created')} ${escapeLine(p)}`);
  for (const p of files.changed) lines.push(`  ${pc.yellow('changed')} ${escapeLine(p)}`);
  for (const p of files.deleted) lines.push(`  ${pc.red('deleted')} ${escapeLine(p)}`);
  if (lines.length === 0) return 'files: none changed';
  return `files${verb}:\n${lines.join('\n')}`;
}

/**
 * The AIPack base dir files a run saved: AIPack writes them, the simulation keeps them in memory only (never on
 * disk, even with --write), so they are named rather than silently dropped. `undefined` when there are none.
 */
export function formatBaseWrites(trace: Trace, workspaceDir: string, aipackBase: string | undefined): string | undefined {
  const inBase = (p: string) => {
    const abs = nodePath.resolve(workspaceDir, p);
    return abs.split(nodePath.sep).includes('.aipack-base') || (aipackBase !== undefined && (abs === aipackBase || abs.startsWith(aipackBase + nodePath.sep)));
  };
  const paths = new Set<string>();
  for (const e of trace.events) if (e.kind === 'file' && e.op !== 'delete' && inBase(e.path)) paths.add(e.path);
  if (paths.size === 0) return undefined;
  return `aipack base (saved in memory only, never written):\n${[...paths].sort().map((p) => `  ${escapeLine(p)}`).join('\n')}`;
}

/** The last line of a coder run report: its status, coloured, and its message. */
export function formatStatus(r: CoderRunReport): string {
  const status = r.status === 'failed' ? pc.red('failed') : r.status === 'skipped' ? pc.yellow('skipped') : pc.green('completed');
  return `${status}${r.message ? `: ${r.message.replace(/^Lua error:\s*\n(?=Sub-agent \[)/, '')}` : ''}`;
}

/**
 * The cause of a failure on one line: the first line of its message, and a pack error that only carries a
 * sub-agent's failure (`Lua error:` then `Sub-agent [...] failed: ...`) said without the `Lua error:` wrapper.
 */
export function errorLine(message: string): string {
  const text = message.replace(/^Lua error:\s*\n(?=Sub-agent \[)/, '');
  return headline(text);
}

/** A `hint:` line a failure message carries (the unmatched-prompt error says how to match), undefined when none. */
export function hintOf(error: Error | undefined): string | undefined {
  const line = error?.message.split('\n').find((l) => l.startsWith('hint: '));
  return line?.slice('hint: '.length);
}

/** A hint for a run that failed on a model call while no --ai file was given; undefined otherwise. */
export function noAiHint(error: Error | undefined, aiGiven: boolean): string | undefined {
  if (!error || aiGiven || !error.message.includes('no scripted AI response')) return undefined;
  return "no --ai file was given: the simulated model only answers from scripted responses (see 'Scripted answers' in the README)";
}
