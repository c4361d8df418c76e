// `coder-subagents check`: pack freshness + lint of the pack's Lua modules and of .aip agents.

import type { EngineName } from '../engine/engine.ts';
import picomatch from 'picomatch';
import { exists, readText, statPath } from '../support/host-fs.ts';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { renderPack as renderPackFromSources } from '../pack/build.ts';
import { walkFiles } from '../support/walk.ts';
import { lintAipFile } from './aip-file.ts';
import { lintLua, type Finding } from './lint.ts';
import { luarcLibraries, SHIPPED_TYPES_DIR, staleLuaDefinitions } from './luals.ts';
import { messages } from '../contract/index.ts';
import { modelNameFindings } from './model-names.ts';
import { subAgentNameFindings } from './sub-agent-names.ts';
import { isPromptFile, laxWarningsOfPrompt, missingAgentsOfPrompt, stagesFromContract, stagesFromPrompt, type StageMap } from './sub-agent-stages.ts';

/** A path given to check does not exist (the CLI reports it as bad usage). */
export class CheckPathError extends Error {}

export interface CheckOptions {
  root: string;
  /** dirs/files (relative to root) whose .aip files are linted; empty = `pack`, `fixtures` */
  paths: string[];
  minAipackVersion: string;
  /** the engine users' agents target (default fengari); the pack's own lua/ and pack/ always run on both */
  engine?: EngineName;
  /** tests: use this instead of src/pack/build.ts (null = skip the freshness check) */
  renderPack?: RenderPack | null;
}

export type RenderPack = (root: string) => Map<string, string>;

export interface CheckResult {
  findings: Finding[];
  /** root-relative posix paths of every file checked */
  files: string[];
  /** things that could not be checked (e.g. the pack builder is missing) */
  notes: string[];
}

const DEFAULT_PATHS = ['pack', 'fixtures'];

export async function runCheck(opts: CheckOptions): Promise<Finding[]> {
  return (await runCheckDetailed(opts)).findings;
}

export async function runCheckDetailed(opts: CheckOptions): Promise<CheckResult> {
  const root = resolve(opts.root);
  const findings: Finding[] = [];
  const notes: string[] = [];
  const files = new Set<string>();
  const userOpts = { minAipackVersion: opts.minAipackVersion, engine: opts.engine };
  const packOpts = { minAipackVersion: opts.minAipackVersion };
  const lintOpts = (file: string) => (/^(lua|pack)\//.test(file) ? packOpts : userOpts);

  await checkPackFresh(root, findings, notes, opts.renderPack);
  checkTypesFresh(root, findings);

  const ignored = readIgnore(root);
  const explicit = opts.paths.length > 0;
  const luaFiles = new Set<string>();
  const aipFiles = new Set<string>();
  const stageMap: StageMap = new Map();
  const namesChecked = new Set<string>();
  for (const dir of ['pack/lua', 'lua']) {
    for (const f of walk(join(root, dir))) if (f.endsWith('.lua')) luaFiles.add(f);
  }
  for (const p of explicit ? opts.paths : DEFAULT_PATHS) {
    const abs = isAbsolute(p) ? p : join(root, p);
    if (!exists(abs)) {
      // defaults are optional, an explicit path must exist
      if (explicit) throw new CheckPathError(`no such file or directory: ${p}`);
      continue;
    }
    for (const f of walk(abs)) {
      if (f.endsWith('.contract.toml')) stagesFromContract(f, stageMap);
      else if (isPromptFile(f, f === abs)) {
        stagesFromPrompt(f, stageMap);
        if (!ignored(rel(root, f))) findings.push(...missingAgentFindings(root, f), ...subAgentNameFindings(root, f), ...modelNameFindings(root, f), ...laxFindings(root, f));
        namesChecked.add(f);
      }
      if (f.endsWith('.aip')) aipFiles.add(f);
      // modules an agent can `require` (`<dir>/lua/...`), or a .lua file named explicitly
      else if (f.endsWith('.lua') && (f === abs || rel(root, f).split('/').includes('lua'))) luaFiles.add(f);
    }
  }

  // a workspace's own prompt files (<ws>/.aipack/.prompt/<pack>/coder-prompt.md) name its sub-agents too
  const dirs = new Set([...aipFiles].map((f) => dirname(f)));
  for (const d of [...dirs]) for (let up = d; up.startsWith(root) && up !== dirname(up); up = dirname(up)) dirs.add(up);
  for (const d of dirs) {
    for (const f of walkFiles(join(d, '.aipack', '.prompt'))) {
      if (!isPromptFile(f, false)) continue;
      stagesFromPrompt(f, stageMap);
      // the names its sub_agents give (events, keys) are checked where they are written
      if (!namesChecked.has(f) && !ignored(rel(root, f))) findings.push(...subAgentNameFindings(root, f), ...modelNameFindings(root, f));
      namesChecked.add(f);
    }
  }

  // an agent checked on its own: its sibling contract file says its stages, as when its directory is checked
  for (const f of aipFiles) {
    const sibling = f.replace(/\.aip$/, '.contract.toml');
    if (!stageMap.has(f) && exists(sibling)) stagesFromContract(sibling, stageMap);
  }

  for (const f of [...luaFiles].sort()) {
    const file = rel(root, f);
    if (ignored(file)) continue;
    const code = readText(f);
    // LuaLS definition files (`---@meta`) only declare; they never run
    if (code.startsWith('---@meta')) continue;
    files.add(file);
    findings.push(...lintLua({ file, code, scope: 'module' }, lintOpts(file)));
  }
  for (const f of [...aipFiles].sort()) {
    const file = rel(root, f);
    if (ignored(file)) continue;
    files.add(file);
    findings.push(...lintAipFile(file, readText(f), lintOpts(file), [...(stageMap.get(f) ?? [])]));
  }
  return { findings, files: [...files], notes };
}

/** A `sub_agents` name of a prompt file whose agent file does not exist: found here, not when its stage runs. */
function missingAgentFindings(root: string, promptFile: string): Finding[] {
  const lines = readText(promptFile).split('\n');
  return missingAgentsOfPrompt(promptFile).map(({ name, path }) => {
    const line = lines.findIndex((l) => l.includes(`"${name}"`) || l.includes(`'${name}'`));
    return {
      file: rel(root, promptFile),
      line: line + 1 || 1,
      column: line === -1 ? 1 : lines[line]!.indexOf(name) + 1,
      rule: 'agent-not-found' as const,
      message: messages.notFound(name, path).replace(/; checked before the run, before any model call\)$/, ')'),
    };
  });
}

/** The lax `sub_agents` entries of a prompt file: warnings, at the entry's `on` line (else the file's first). */
function laxFindings(root: string, promptFile: string): Finding[] {
  const lines = readText(promptFile).split('\n');
  return laxWarningsOfPrompt(promptFile).map((message) => {
    const name = /\(([^)]*)\)/.exec(message)?.[1] ?? '';
    const at = lines.findIndex((l) => name !== '' && l.includes(name));
    const line = at === -1 ? -1 : lines.findIndex((l, i) => i >= at && /\bon\s*[:=]/.test(l));
    return { file: rel(root, promptFile), line: line + 1 || 1, column: 1, rule: 'lax-form' as const, message, severity: 'warning' as const };
  });
}

/**
 * `<root>/.checkignore`: root-relative globs (one per line, `#` comments) of files that are not linted, e.g.
 * agents that misbehave on purpose. The pack freshness check is not affected.
 */
export const IGNORE_FILE = '.checkignore';

function readIgnore(root: string): (file: string) => boolean {
  const path = join(root, IGNORE_FILE);
  if (!exists(path)) return () => false;
  const globs = readText(path)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return picomatch(globs, { dot: true });
}

/** Compares what `build` would write under pack/ with what is on disk (only in a pack source tree). */
async function checkPackFresh(
  root: string,
  findings: Finding[],
  notes: string[],
  injected: RenderPack | null | undefined,
): Promise<void> {
  if (injected === null) return;
  // An unpacked or installed pack has no sources to compare with: only its Lua is checked.
  if (injected === undefined && !exists(join(root, 'lua', 'main.aip'))) {
    // worth a word only where a pack/ sits without its sources; a user's project simply has no pack
    if (exists(join(root, 'pack'))) notes.push(`pack freshness not checked: ${root} holds no pack sources (lua/main.aip)`);
    return;
  }
  const renderPack = injected ?? renderPackFromSources;
  let expected: Map<string, string>;
  try {
    expected = renderPack(root);
  } catch (err) {
    findings.push({
      file: 'pack',
      line: 1,
      column: 1,
      rule: 'stale-pack',
      message: `cannot tell whether pack/ is fresh: rendering it failed: ${err instanceof Error ? err.message : String(err)}`,
    });
    return;
  }
  const packDir = join(root, 'pack');
  const onDisk = new Set(walk(packDir).map((f) => rel(packDir, f)));
  const stale = (path: string, what: string) =>
    findings.push({
      file: `pack/${path}`,
      line: 1,
      column: 1,
      rule: 'stale-pack',
      message: `pack/ is not what \`coder-subagents build\` would write: ${path} is ${what}; run \`npx coder-subagents build\``,
    });
  for (const [path, content] of [...expected].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!onDisk.has(path)) stale(path, 'missing');
    else if (readText(join(packDir, path)) !== content) stale(path, 'stale');
  }
  for (const path of [...onDisk].sort()) if (!expected.has(path)) stale(path, 'unexpected');
}

/**
 * Generated LuaLS definitions (the shipped `lua-types`, and every directory `.luarc.json` names) must be what
 * `coder-subagents types` writes now.
 */
function checkTypesFresh(root: string, findings: Finding[]): void {
  const dirs = [...luarcLibraries(root), ...(exists(join(root, SHIPPED_TYPES_DIR)) ? [SHIPPED_TYPES_DIR] : [])];
  for (const s of staleLuaDefinitions(root, dirs)) {
    const path = isAbsolute(s.dir) ? s.dir : s.dir.split(sep).join('/').replace(/\/$/, '');
    findings.push({
      file: `${path}/${s.file}`,
      line: 1,
      column: 1,
      rule: 'stale-types',
      message: `the Lua type definitions are not what \`coder-subagents types\` would write: ${s.file} is ${s.what}; run \`npx coder-subagents types --dir ${path}\``,
    });
  }
}

/** A file, or the files below a directory (skipping node_modules and dot-dirs). */
function walk(path: string): string[] {
  if (!exists(path)) return [];
  return statPath(path).isDirectory() ? walkFiles(path) : [path];
}

/** `f` relative to `root`, `/`-separated. */
function rel(root: string, f: string): string {
  return relative(root, f).split(sep).join('/');
}
