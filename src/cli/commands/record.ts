import type { Command } from 'commander';
import nodePath from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { exists, readText, writeUserFile } from '../../support/host-fs.ts';
import { findRecord, readRecord, RecordError } from '../../harness/record-file.ts';
import { importRecord, type ScriptedAnswer } from '../../harness/record-import.ts';
import { ScriptedAi, ScriptedAiError } from '../../runtime/ai.ts';
import { findWorkspace } from '../../runtime/workspace.ts';
import { requireDir, UsageError, type SetExit } from '../errors.ts';

interface ImportCliOptions {
  agent?: string;
  ai?: string;
  workspace?: string;
  json?: boolean;
}

/** The [[response]] entries of a scripted answers file, checked as `run --ai` checks them. */
export function answersFromFile(file: string): ScriptedAnswer[] {
  if (!exists(file)) throw new UsageError(`--ai ${file}: file not found`);
  const text = readText(file);
  try {
    ScriptedAi.fromToml(text, file);
  } catch (err) {
    if (err instanceof ScriptedAiError) throw new UsageError(err.message);
    throw err;
  }
  const doc = parseToml(text) as { response?: ScriptedAnswer[] };
  return doc.response ?? [];
}

/** The workspace a record command works in: --workspace, else the nearest folder with .aipack/. */
export function recordWorkspace(o: { workspace?: string }): string {
  if (!o.workspace) return findWorkspace(process.cwd());
  const dir = nodePath.resolve(o.workspace);
  requireDir('--workspace', o.workspace, dir);
  return dir;
}

/** The record a command names, read; a missing or malformed one is a usage error (exit 2). */
export function loadRecord(run: string, workspaceDir: string): ReturnType<typeof readRecord> {
  try {
    return readRecord(findRecord(run, workspaceDir));
  } catch (err) {
    if (err instanceof RecordError) throw new UsageError(err.message);
    throw err;
  }
}

/** `coder-subagents record import <run>`: contract cases from a run the pack recorded (`record = true`). */
export function register(program: Command, _setExit: SetExit): void {
  const record = program.command('record').description('work with run records (a prompt with record = true writes one per run)');
  record
    .command('import <run>')
    .description('write contract cases from a run record: one per recorded sub-agent call, beside the agent (<run>: a record folder, a run id, or latest)')
    .option('--agent <name>', 'only this sub-agent (its entry name or file name)')
    .option('--ai <file>', "scripted answers (as run --ai) for the sub-agents' own model calls, which a record cannot hold")
    .option('--workspace <dir>', 'workspace directory (default: the nearest one with .aipack/)')
    .option('--json', 'print what was written as JSON')
    .action((run: string, o: ImportCliOptions) => {
      const workspaceDir = recordWorkspace(o);
      const rec = loadRecord(run, workspaceDir);
      const answers = o.ai !== undefined ? answersFromFile(o.ai) : undefined;
      let files;
      try {
        files = importRecord(rec, { agent: o.agent, answers, workspaceDir });
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      for (const f of files) {
        if (exists(f.file)) throw new UsageError(`${f.file} exists already: remove it, or import another run`);
      }
      for (const f of files) writeUserFile(f.file, f.text, { exclusive: true });
      if (o.json) {
        const json = files.map((f) => ({ agent: f.agent, file: f.file, cases: f.cases, todos: f.todos }));
        process.stdout.write(JSON.stringify({ record: rec.dir, files: json }, null, 2) + '\n');
        return;
      }
      const rel = (p: string) => nodePath.relative(process.cwd(), p) || p;
      for (const f of files) {
        const todo = f.todos ? ` (${f.todos} with a todo: fill in what the record cannot know)` : '';
        process.stdout.write(`wrote ${rel(f.file)}: ${f.cases} case${f.cases === 1 ? '' : 's'} of ${f.agent}${todo}\n`);
      }
      if (files.length === 0) process.stdout.write(`record ${rec.run.id} has no call of a local sub-agent\n`);
      else process.stdout.write(`run them: npx coder-subagents test ${files.map((f) => rel(f.file)).join(' ')}\n`);
    });
}
