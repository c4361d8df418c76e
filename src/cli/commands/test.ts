import { watch, type FSWatcher } from 'node:fs';
import nodePath from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { affectedContractFiles, DiscoveryError, findContractFiles } from '../../harness/discover.ts';
import { stalePackFiles } from '../../harness/pack-freshness.ts';
import type { RunOptions } from '../../harness/run-case.ts';
import { formatSuite, runContractFiles, suiteJson, type SuiteResult } from '../../harness/suite.ts';
import { UsageError, type SetExit } from '../errors.ts';
import { formatTrace } from '../format.ts';
import { addEngineOption, engineFromOption } from '../sim-options.ts';
import type { EngineName } from '../../engine/engine.ts';

interface TestOptions {
  json?: boolean;
  strict?: boolean;
  watch?: boolean;
  filter?: string;
  trace?: boolean;
  engine?: string;
  /** the loaded engine (from --engine) */
  engineName?: EngineName;
}

/** 0 all passed, 1 a case failed, 2 a harness problem (malformed case file, missing agent). */
function exitCodeOf(r: SuiteResult): number {
  if (r.errors.length > 0) return 2;
  return r.failed > 0 ? 1 : 0;
}

function report(r: SuiteResult, o: TestOptions): void {
  const cwd = process.cwd();
  if (o.json) {
    process.stdout.write(JSON.stringify(suiteJson(r, cwd), null, 2) + '\n');
    return;
  }
  const text = formatSuite(r, { cwd, trace: o.trace, formatTrace: (c) => (c.result ? formatTrace(c.result.trace) : '') });
  for (const e of r.errors) process.stderr.write(`error: ${e}\n`);
  process.stdout.write(text + '\n');
}

function find(paths: string[]): string[] {
  let files: string[];
  try {
    files = findContractFiles(paths);
  } catch (err) {
    if (err instanceof DiscoveryError) throw new UsageError(err.message);
    throw err;
  }
  if (files.length === 0) throw new UsageError(`no case files (*.contract.toml) found under ${(paths.length ? paths : ['.']).join(', ')}`);
  return files;
}

/** A path as the user would write it: relative to the working directory when below it. */
function relative(abs: string): string {
  const rel = nodePath.relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !nodePath.isAbsolute(rel) ? rel : abs;
}

function runOnce(files: string[], o: TestOptions): { result: SuiteResult; code: number } {
  const options: RunOptions = { strict: o.strict, filter: o.filter, engine: o.engineName };
  // relative paths, so that messages name the files as the user does
  const result = runContractFiles(files.map(relative), options);
  if (o.filter && result.cases.length === 0 && result.errors.length === 0) {
    throw new UsageError(`no case matches --filter ${JSON.stringify(o.filter)} in ${files.length} case file${files.length === 1 ? '' : 's'}`);
  }
  report(result, o);
  return { result, code: exitCodeOf(result) };
}

/**
 * `--watch`: re-runs the case files a change affects (affectedContractFiles), until the process is stopped.
 * Watches the given paths and every watched path of the known case files (agents may live elsewhere).
 */
function watchLoop(paths: string[], first: SuiteResult, o: TestOptions): Promise<never> {
  const watched = new Map<string, readonly string[]>(first.files.map((f) => [f.file, f.watch]));
  const roots = new Set<string>((paths.length ? paths : ['.']).map((p) => nodePath.resolve(p)));
  for (const ws of watched.values()) for (const p of ws) roots.add(nodePath.dirname(p));
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    const files = new Set<string>();
    for (const changed of pending) for (const f of affectedContractFiles(changed, watched)) files.add(f);
    pending.clear();
    if (files.size === 0) return;
    process.stdout.write(`\n${pc.dim(`re-running ${[...files].map(relative).join(', ')}`)}\n`);
    try {
      warnIfStale();
      const { result } = runOnce([...files], o);
      for (const f of result.files) watched.set(f.file, f.watch);
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
    }
  };
  const watchers: FSWatcher[] = [];
  for (const root of roots) {
    try {
      watchers.push(
        watch(root, { recursive: true }, (_event, name) => {
          if (!name) return;
          pending.add(nodePath.resolve(root, name.toString()));
          // coalesce the burst of events one save produces (editors write, rename, chmod)
          if (!timer) timer = setTimeout(flush, 100);
        }),
      );
    } catch {
      // a root that vanished or cannot be watched: the others still are
    }
  }
  process.stdout.write(pc.dim(`watching ${roots.size} path${roots.size === 1 ? '' : 's'} (Ctrl-C to stop)\n`));
  return new Promise<never>(() => {});
}

/** The cases run the built pack/: say so when it lags behind lua/ (the results would test old code). */
function warnIfStale(): void {
  const stale = stalePackFiles();
  if (stale.length === 0) return;
  const list = stale.length > 3 ? `${stale.slice(0, 3).join(', ')}, ...` : stale.join(', ');
  process.stderr.write(`warning: pack/ is out of date with lua/ (${list}): the cases run the old code; run npx coder-subagents build\n`);
}

export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('test [paths...]')
    .description("run sub-agent contract cases (*.contract.toml) through the coder pack's own pipeline code")
    .option('--json', 'print one JSON object: { cases, passed, failed, skipped, errors }')
    .option('--strict', 'warnings (dropped params, unknown or ignored response keys, ...) fail the case')
    .option('--watch', 're-run the affected case files when a case file or its agent changes')
    .option('--filter <text>', 'run only the cases whose file path or name contains TEXT')
    .option('--trace', "print each case's trace (the sub-agent's stages, AI calls, files)");
  addEngineOption(cmd)
    .action(async (paths: string[], o: TestOptions) => {
      o.engineName = await engineFromOption(o.engine);
      const files = find(paths);
      warnIfStale();
      const { result, code } = runOnce(files, o);
      setExit(code);
      if (o.watch) await watchLoop(paths, result, o);
    });
}
