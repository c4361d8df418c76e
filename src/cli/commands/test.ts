import { makeUserDir, writeFileBelow, writeUserFile } from '../../support/host-fs.ts';
import nodePath from 'node:path';
import v8 from 'node:v8';
import { InvalidArgumentError, Option, type Command } from 'commander';
import pc from 'picocolors';
import { findConfigFile, REPORTERS, type ReporterName } from '../../harness/config-find.ts';
import type { TestConfig } from '../../harness/config-parse.ts';
import { affectedContractFiles, discover, DiscoveryError } from '../../harness/discover.ts';
import { countCases, prestartSuiteWorkers, runContractFilesIsolated, suiteWorkersFor } from '../../harness/isolated.ts';
import { SLOW_MS, type SuiteResult } from '../../harness/suite-result.ts';
import type { SuiteOptions } from '../../harness/suite.ts';
import type { CaseResult } from '../../harness/run-case.ts';
import type { LiveReport } from '../../harness/reporters/live.ts';
import { MAX_COUNT, positiveIntFlag, timeoutOf, UsageError, type SetExit } from '../errors.ts';
import { relativeToCwd } from '../../support/paths.ts';

// Only what runs before the worker starts is imported above. The rest (config parser, engine names, version
// catalog, reporters, trace format, pack freshness) loads on this thread while the worker loads the runner.

interface TestFlags {
  json?: boolean;
  strict?: boolean;
  orderCheck?: boolean;
  watch?: boolean;
  filter?: string;
  testNamePattern?: string;
  bail?: number | true;
  reporter?: string;
  outputFile?: string;
  aipackVersion?: string;
  budget?: string;
  shard?: string;
  config?: string;
  trace?: boolean;
  timeout?: string;
  engine?: string;
}

/** The flags, with the config file's values under them: what one run does. */
interface Settings {
  paths: string[];
  reporter: ReporterName;
  outputFile?: string;
  /** set when the output file comes from the config file: the project it must be written in */
  outputRoot?: string;
  trace: boolean;
  slowMs: number;
  watch: boolean;
  options: SuiteOptions;
  timeoutMs: number;
  /** the AIPack versions the suite runs against, one run each (one: the default or the version given) */
  versions: (string | undefined)[];
}

/**
 * The versions of `--aipack-version` (or the config's `aipack_version`): one version, or several separated by
 * commas (`oldest,newest`), each run as its own suite. Undefined: the simulator's default.
 */
async function versionsOf(given: string | undefined, where: string): Promise<(string | undefined)[]> {
  if (given === undefined) return [undefined];
  const { isValidVersion, resolveVersionAlias } = await import('../../aip/catalog.ts');
  const versions = given.split(',').map(resolveVersionAlias);
  for (const v of versions) {
    if (!isValidVersion(v)) throw new UsageError(`${where} ${given}: expected MAJOR.MINOR.PATCH (e.g. 0.8.15), "oldest" or "newest", or several separated by commas`);
  }
  return [...new Set(versions)];
}

/** 0 all passed, 1 a case failed, 2 a harness problem (malformed case file, missing agent). */
function exitCodeOf(r: SuiteResult): number {
  if (r.errors.length > 0) return 2;
  return r.failed > 0 ? 1 : 0;
}

const positiveInt = (flag: string, v: string): number => positiveIntFlag(flag, v);

async function settingsOf(paths: string[], o: TestFlags): Promise<Settings> {
  const configFile = o.config ? nodePath.resolve(o.config) : findConfigFile();
  let config: Partial<TestConfig> = {};
  if (configFile) {
    const { ConfigError, loadConfig } = await import('../../harness/config-parse.ts');
    try {
      config = loadConfig(configFile);
    } catch (err) {
      if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UsageError(err instanceof ConfigError ? err.message : `--config ${o.config}: file not found`);
      }
      throw err;
    }
  }
  if (o.json && o.reporter && o.reporter !== 'json') throw new UsageError(`--json and --reporter ${o.reporter}: give one of them`);
  const reporter = (o.json ? 'json' : o.reporter ?? config.reporter ?? 'default') as ReporterName;
  if (!(REPORTERS as readonly string[]).includes(reporter)) throw new UsageError(`--reporter ${reporter}: expected one of ${REPORTERS.join(', ')}`);
  if (reporter === 'html' && !(o.outputFile ?? config.output_file)) throw new UsageError('--reporter html writes a page: give the file with --output-file <file.html>');
  const versions = await versionsOf(o.aipackVersion ?? config.aipack_version, o.aipackVersion ? '--aipack-version' : `${configFile}: aipack_version`);
  if (versions.length > 1 && reporter !== 'default' && !(o.outputFile ?? config.output_file)) {
    throw new UsageError(`--reporter ${reporter} with several AIPack versions: give --output-file (one report per version, the version in its name)`);
  }
  let testNamePattern: RegExp | undefined;
  if (o.testNamePattern !== undefined) {
    try {
      testNamePattern = new RegExp(o.testNamePattern);
    } catch (err) {
      throw new UsageError(`--test-name-pattern ${o.testNamePattern}: invalid regex: ${(err as Error).message}`);
    }
  }
  const { engineOf } = await import('../engine-flag.ts');
  let shard: SuiteOptions['shard'];
  if (o.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(o.shard);
    const index = Number(m?.[1]);
    const count = Number(m?.[2]);
    if (!m || count < 1 || index < 1 || index > count || count > MAX_COUNT) throw new UsageError(`--shard ${o.shard}: expected INDEX/COUNT with 1 <= INDEX <= COUNT, e.g. 1/3`);
    shard = { index, count };
  }
  return {
    paths: paths.length > 0 ? paths : config.paths ?? [],
    reporter,
    outputFile: o.outputFile ?? config.output_file,
    ...(o.outputFile === undefined && config.output_file !== undefined ? { outputRoot: config.project } : {}),
    trace: o.trace ?? false,
    slowMs: config.slow_ms ?? SLOW_MS,
    watch: o.watch ?? false,
    timeoutMs: timeoutOf(o),
    versions,
    options: {
      strict: o.strict ?? config.strict,
      orderCheck: o.orderCheck ?? config.order_check,
      filter: o.filter,
      testNamePattern,
      bail: o.bail === true ? 1 : o.bail,
      shard,
      aipackVersion: versions[0],
      budget: o.budget !== undefined ? positiveInt('--budget', o.budget) : config.budget,
      // the worker loads it (harness/worker-jobs.ts)
      engine: engineOf(o.engine ?? config.engine),
    },
  };
}


function find(paths: string[]): { files: string[]; agents: string[] } {
  let found;
  try {
    found = discover(paths);
  } catch (err) {
    if (err instanceof DiscoveryError) throw new UsageError(err.message);
    throw err;
  }
  if (found.files.length === 0) {
    const where = (paths.length ? paths.map((p) => relativeToCwd(p)) : ['.']).join(', ');
    const lonely = found.agents.length > 0 ? ` (agents without one: ${found.agents.map((p) => relativeToCwd(p)).join(', ')}; npx coder-subagents init writes a starter)` : '';
    throw new UsageError(`no case files (*.contract.toml) found under ${where}${lonely}`);
  }
  return found;
}

/** Whether the default report is printed (then it streams its cases). */
const streams = (s: Settings) => s.reporter === 'default' || Boolean(s.outputFile);

async function liveReporter(s: Settings, total: number) {
  const [{ liveReport }, format] = await Promise.all([import('../../harness/reporters/live.ts'), s.trace ? import('../format.ts') : undefined]);
  return liveReport({
    out: process.stdout,
    cwd: process.cwd(),
    trace: s.trace,
    slowMs: s.slowMs,
    total,
    formatTrace: (c: CaseResult) => (c.result && format ? format.formatTrace(c.result.trace) : ''),
  });
}

/** Prints (and writes) the reports of one run; the default report's case lines were printed as the cases ended. */
async function report(r: SuiteResult, s: Settings): Promise<void> {
  const [{ REPORTER_BY_NAME, formatSuite, loadReporter }, format] = await reportModules(s);
  await loadReporter(s.reporter);
  const options = { cwd: process.cwd(), trace: s.trace, slowMs: s.slowMs, formatTrace: (c: CaseResult) => (c.result && format ? format.formatTrace(c.result.trace) : '') };
  const reporter = REPORTER_BY_NAME[s.reporter];
  if (s.outputFile) {
    const out = nodePath.resolve(s.outputFile);
    if (s.outputRoot !== undefined) {
      writeFileBelow(s.outputRoot, out, reporter.render(r, options));
    } else {
      makeUserDir(nodePath.dirname(out));
      writeUserFile(out, reporter.render(r, options));
    }
  }
  if (reporter.machine && !s.outputFile) {
    process.stdout.write(reporter.render(r, options));
    return;
  }
  for (const e of r.errors) process.stderr.write(`error: ${e}\n`);
  process.stdout.write(formatSuite(r, { ...options, cases: false }) + '\n');
  if (s.outputFile) process.stdout.write(pc.dim(`${s.reporter} report written to ${relativeToCwd(nodePath.resolve(s.outputFile))}\n`));
}

/** The report's modules; the trace format only for --trace. */
const reportModules = (s: Settings) => Promise.all([import('../../harness/reporters/index.ts'), s.trace ? import('../format.ts') : undefined]);

async function runOnce(files: string[], agents: string[], s: Settings): Promise<{ result: SuiteResult; code: number }> {
  // V8 lets a heap grow to up to 4 times what it keeps alive before a full collection, and the garbage of thousands
  // of cases fills it: a 10k-case run peaked at ~320 MB, ~200 MB when the heap grows by 20% at a time (the same
  // wall time; ~9% more CPU on V8's GC threads). A small suite would pay for its many collections while the heap
  // grows to its working size (~0.1 s on 100 fengari cases), so only a large one gets it. V8 reads the setting at
  // each collection, and it holds for the whole process.
  // the case files are read once here, for both decisions
  const cases = countCases(files, s.options);
  if (cases >= LARGE_SUITE_CASES) v8.setFlagsFromString(HEAP_GROWING);
  const workers = suiteWorkersFor(cases, s.options);
  prestartSuiteWorkers(workers);
  // the pack's freshness is checked, and the report's modules loaded, once the cases run: not while the workers
  // load the runner, which every case waits for
  let stale: Promise<string | undefined> | undefined;
  let reporting: ReturnType<typeof reportModules> | undefined;
  const meanwhile = () => {
    stale ??= staleWarning();
    reporting ??= reportModules(s);
    loadLive();
  };
  // the human report streams: each case as it ends (and a progress line on a terminal); the summary at the end.
  // Its module loads once the cases run (as the report's); cases that end before it has loaded wait for it.
  let live: LiveReport | undefined;
  let liveLoading: Promise<void> | undefined;
  const early: CaseResult[] = [];
  const loadLive = () => {
    if (!streams(s) || liveLoading) return;
    liveLoading = liveReporter(s, cases).then((l) => {
      live = l;
      for (const c of early.splice(0)) l.onCase(c);
    });
  };
  const onCase = (c: CaseResult) => (live ? live.onCase(c) : early.push(c));
  let result: SuiteResult;
  try {
    // relative paths, so that messages name the files as the user does; each case under the --timeout deadline
    // only --trace prints a case's stage run: without it, each case leaves its verdict alone (memory stays flat)
    result = await runContractFilesIsolated(files.map((p) => relativeToCwd(p)), { ...s.options, agents, verdictsOnly: !s.trace, runViews: s.reporter === 'html' }, { timeoutMs: s.timeoutMs, workers, onStart: meanwhile, onCaseEnd: onCase });
  } finally {
    meanwhile();
    await liveLoading;
    live?.end();
    const warning = await stale;
    if (warning) process.stderr.write(warning);
  }
  await reporting;
  if ((s.options.filter || s.options.testNamePattern) && result.cases.length === 0 && result.errors.length === 0 && !s.options.shard) {
    const what = [s.options.filter ? `--filter ${JSON.stringify(s.options.filter)}` : '', s.options.testNamePattern ? `--test-name-pattern ${s.options.testNamePattern}` : '']
      .filter(Boolean)
      .join(' and ');
    throw new UsageError(`no case matches ${what} in ${files.length} case file${files.length === 1 ? '' : 's'}`);
  }
  await report(result, s);
  return { result, code: exitCodeOf(result) };
}

/** Runs the suite once per AIPack version asked for; the exit code is the worst of the runs. */
async function runVersions(files: string[], agents: string[], s: Settings): Promise<{ result: SuiteResult; code: number }> {
  if (s.versions.length === 1) return runOnce(files, agents, s);
  let last: { result: SuiteResult; code: number } | undefined;
  let code = 0;
  for (const version of s.versions) {
    if (s.reporter === 'default' || s.outputFile) process.stdout.write(`${last ? '\n' : ''}${pc.bold(`AIPack ${version}`)}\n`);
    const outputFile = s.outputFile && version ? withVersion(s.outputFile, version) : s.outputFile;
    last = await runOnce(files, agents, { ...s, outputFile, options: { ...s.options, aipackVersion: version } });
    code = Math.max(code, last.code);
  }
  return { result: last!.result, code };
}

/** reports/x.xml -> reports/x.0.8.15.xml: one report per version when a suite runs against several. */
function withVersion(file: string, version: string): string {
  const ext = nodePath.extname(file);
  return `${file.slice(0, file.length - ext.length)}.${version}${ext}`;
}

/**
 * `--watch`: re-runs the case files a change affects (affectedContractFiles) until the process is stopped. Watches
 * the searched paths (new case files) and every watched path of the known case files (agent, its lua/, support),
 * through chokidar, which follows editors' safe-writes (write a temp file, rename it over the original).
 */
async function watchLoop(first: SuiteResult, s: Settings): Promise<never> {
  const { watch } = await import('chokidar');
  const watched = new Map<string, readonly string[]>(first.files.map((f) => [f.file, f.watch]));
  const roots = new Set<string>((s.paths.length ? s.paths : ['.']).map((p) => nodePath.resolve(p)).filter((p) => !/[*?[{]/.test(p)));
  for (const ws of watched.values()) for (const p of ws) roots.add(p);
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    timer = undefined;
    const files = new Set<string>();
    for (const changed of pending) for (const f of affectedContractFiles(changed, watched)) files.add(f);
    pending.clear();
    if (files.size === 0) return;
    process.stdout.write(`\n${pc.dim(`re-running ${[...files].map((p) => relativeToCwd(p)).join(', ')}`)}\n`);
    try {
      const { result } = await runVersions([...files], [], s);
      for (const f of result.files) {
        watched.set(f.file, f.watch);
        for (const p of f.watch.filter((w) => !roots.has(w))) {
          roots.add(p);
          watcher.add(p);
        }
      }
    } catch (err) {
      process.stderr.write(`error: ${(err as Error).message}\n`);
    }
  };
  const watcher = watch([...roots], { ignoreInitial: true, atomic: true, ignored: (p) => /(^|[\\/])(node_modules|\.git)([\\/]|$)/.test(p) });
  watcher.on('all', (_event, path) => {
    pending.add(nodePath.resolve(path));
    // coalesce the burst of events one save produces (editors write, rename, chmod)
    if (!timer) timer = setTimeout(() => void flush(), 100);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  process.stdout.write(pc.dim(`watching ${roots.size} path${roots.size === 1 ? '' : 's'} (Ctrl-C to stop)\n`));
  return new Promise<never>(() => {});
}

/** The cases run the built pack/: the warning to print when it lags behind lua/ (the results would test old code). */
async function staleWarning(): Promise<string | undefined> {
  const { stalePackFiles } = await import('../../harness/pack-freshness.ts');
  const stale = await stalePackFiles();
  if (stale.length === 0) return undefined;
  const list = stale.length > 3 ? `${stale.slice(0, 3).join(', ')}, ...` : stale.join(', ');
  return `warning: pack/ is out of date with lua/ (${list}): the cases run the old code; run npx coder-subagents build\n`;
}

const HEAP_GROWING = '--heap-growing-percent=20';
const LARGE_SUITE_CASES = 500;

const bailCount = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  if (n > MAX_COUNT) throw new InvalidArgumentError(`at most ${MAX_COUNT}`);
  return n;
};

export function register(program: Command, setExit: SetExit): void {
  program
    .command('test [paths...]')
    .description("run sub-agent contract cases (*.contract.toml) through the coder pack's own pipeline code")
    .option('-t, --test-name-pattern <regex>', 'run only the cases whose name (or "file › name") matches REGEX')
    .option('--filter <text>', 'run only the cases whose file path or name contains TEXT')
    .option('--bail [n]', 'stop after N failed cases (default 1)', bailCount)
    .addOption(new Option('--reporter <name>', 'report format').choices(REPORTERS))
    .option('--output-file <path>', 'write the report to PATH (the default report still prints)')
    .option('--json', 'the same as --reporter json: { cases, passed, failed, skipped, errors, ... }')
    .option('--strict', 'warnings (dropped params, unknown or ignored response keys, ...) fail the case')
    .option('--order-check', "run each parallel group's members in every order too (up to 6 members; more: reversed and 4 shuffles) and fail a case whose result depends on the order")
    .option('--aipack-version <versions>', 'simulated AIPack version (CTX.AIPACK_VERSION): a version, "oldest" or "newest", or several separated by commas (oldest,newest), each run as its own suite')
    .option('--budget <instructions>', 'instruction budget of a run (the agent and every agent it runs)')
    .option('--engine <name>', 'Lua engine: fengari (Lua 5.3, default) or lua54 (Lua 5.4 as in AIPack; default from $CODER_SUBAGENTS_ENGINE)')
    .option('--shard <index/count>', 'run only part INDEX of COUNT of the cases (to split a suite across CI machines)')
    .option('--config <file>', 'config file (default: coder-subagents.config.toml here or above, up to the project root)')
    .option('--watch', 're-run the affected case files when a case file, its agent, its lua/ or support files change')
    .option('--trace', "print each case's trace (the sub-agent's stages, AI calls, files)")
    .option('--timeout <seconds>', 'wall-clock deadline of each case: the run is stopped and fails after it (0 = none)', '60')
    .action(async (paths: string[], o: TestFlags) => {
      // the worker loads the runner (~0.2 s) while this thread reads the flags and finds the case files
      prestartSuiteWorkers();
      const s = await settingsOf(paths, o);
      const found = find(s.paths);
      const { result, code } = await runVersions(found.files, found.agents, s);
      setExit(code);
      if (s.watch) await watchLoop(result, s);
    });
}

