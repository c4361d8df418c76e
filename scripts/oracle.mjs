// The parity oracle: runs each scenario of a folder (default fixtures/oracle/) twice on the simulator, once with
// this repository's pack and once with upstream's pro@coder (aipack-ai/packs-pro, pro/coder: fetched by whoever
// runs this, never committed), on each chosen engine, and diffs what a user of upstream's pack can observe: the
// workspace files, the prompt file, each user sub-agent's input and output (from the trace), the AI calls
// (agent, model, files sent) and the exit code.
//
//   npm run oracle -- --upstream <dir of pro/coder> [--scenarios DIR] [--engine fengari,lua54] [--only NAME]
//                     [--verbose] [--json]
//
// A scenario is a folder (its format: fixtures/oracle/README.md). The pack's documented choices (KNOWN below, and a
// scenario's `documented` reason) are listed as such and do not count as disagreement; every other difference
// does, and a run that printed no report (a crash) is an error. Exit code: 0 when every scenario
// agrees (known differences aside), 1 otherwise, 2 on bad usage.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse as parseToml } from 'smol-toml';

const ROOT = nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url)));
const BIN = nodePath.join(ROOT, 'src/cli/bin.ts');
const DEFAULT_AIPACK_VERSION = '0.8.33';
/** Files of a scenario folder that are not part of its workspace. */
const SCENARIO_FILES = new Set(['scenario.toml', 'ai.toml']);
/**
 * Input keys only this pack gives a sub-agent (the stage form's fields, which it gives the event form too): a
 * superset, not a difference. By the path of the table holding them (`[]` stands for any index).
 */
export const OURS_ONLY_INPUT_KEYS = {
  input: new Set(['coder_stage', 'coder_prompts']),
  'input.coder_responses[]': new Set(['task_num', 'content', 'files_changed', 'files_failed']),
};
/** Keys whose values depend on when the scenario was copied (file times), left out of every comparison. */
const VOLATILE_KEYS = new Set(['ctime', 'mtime']);

/**
 * Differences with a documented cause, each a label, the reason printed with it, and a test over one difference
 * (`{ area, path, up, ours }`). Only one: the files that hold a pack's own prose (its README, which each run copies
 * into the prompt folder; its user templates and the workbench rules made from them) are written in this
 * project's own words, never copied from upstream; they must exist where upstream's do, and only their text may
 * differ.
 */
export const KNOWN = [
  {
    label: 'own prose',
    reason: "the pack's README copy, user templates and workbench rules are in this project's own words (never copied from upstream); both packs write the same files",
    test: (d) =>
      d.area === 'files' && d.up !== undefined && d.ours !== undefined &&
      /(^|\/)(README\.md|user-templates\/[^/]+\.md|\.cache\/_(chat|goal|plan|spec)-rules\.md)$/.test(d.path),
  },
];
/**
 * The run reports that repeat each answer under the info lines of the pack (`last_ai_responses_for_raw.md`,
 * `last_ai_responses_for_prompt.md`): compared as the prompt file's answers are (see promptView).
 */
const ANSWER_REPORTS = /(^|\/)last_ai_responses_for_(raw|prompt)\.md$/;
/** Where a run's copy of the workspace was: each run has its own, so absolute paths are compared from it. */
const WORKSPACE_MARK = '<workspace>';

/** `{ about, prompt, aipack_version, documented? }` of a scenario folder, defaults applied. */
export function loadScenario(dir) {
  const file = nodePath.join(dir, 'scenario.toml');
  const raw = existsSync(file) ? parseToml(readFileSync(file, 'utf8')) : {};
  const allowed = new Set(['about', 'prompt', 'aipack_version', 'documented']);
  for (const key of Object.keys(raw)) {
    if (!allowed.has(key)) throw new Error(`${file}: unknown key '${key}' (expected one of ${[...allowed].join(', ')})`);
  }
  if (!existsSync(nodePath.join(dir, 'ai.toml'))) throw new Error(`${dir}: no ai.toml (the scripted answers)`);
  return {
    name: nodePath.basename(dir),
    dir,
    about: String(raw.about ?? ''),
    prompt: String(raw.prompt ?? 'prompt'),
    aipackVersion: String(raw.aipack_version ?? DEFAULT_AIPACK_VERSION),
    documented: raw.documented === undefined ? undefined : String(raw.documented),
  };
}

/** Every file below `dir` (workspace-relative, `/`-separated) with its content, the installed packs left out. */
export function snapshot(dir) {
  const out = {};
  const walk = (abs, rel) => {
    for (const name of readdirSync(abs).sort()) {
      const childAbs = nodePath.join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      if (childRel === '.aipack/pack' || childRel === '.aipack/.coder-subagents-write.lock') continue;
      if (!rel && SCENARIO_FILES.has(name)) continue;
      if (statSync(childAbs).isDirectory()) walk(childAbs, childRel);
      else out[childRel] = readFileSync(childAbs, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** A code map's JSON file (`*code-map*.json`, `*content-map*.json`), as both packs name theirs. */
const CODE_MAP_FILE = /(^|\/)[^/]*(code-map|content-map)[^/]*\.json$/i;

/**
 * A code map as compared: each entry's `mtime` left out (the two runs copy the files at different times) and the
 * copy's workspace folder written `<workspace>` (a map keyed by absolute path names it). Not JSON: as it is.
 */
export function codeMapView(text, workspace) {
  let doc;
  try {
    doc = JSON.parse(text.split(workspace).join('<workspace>'));
  } catch {
    return text;
  }
  if (doc && typeof doc.file_map === 'object' && doc.file_map !== null) {
    for (const entry of Object.values(doc.file_map)) if (entry && typeof entry === 'object') delete entry.mtime;
  }
  return JSON.stringify(doc, null, 2);
}

/** The files a model call was sent (the `<X_FILE file_path=...>` blocks and the attachments), in order. */
export function filesSent(prompt) {
  const files = [];
  for (const m of String(prompt).matchAll(/<([A-Z]+_FILE) file_path="([^"]*)"|\[attachment: ([^\]\s]+)/g)) {
    files.push(m[3] !== undefined ? `attachment ${m[3]}` : `${m[1]} ${m[2]}`);
  }
  return files;
}

/** Agents of the packs themselves (auto-fix, auto-context, code-map), named as either pack calls them. */
const BUILTIN = /^(pro@coder\/)?(auto-fix|auto-context|code-map)(\.aip)?$/;
/** One name for a pack's own agent, however the pack called it (`pro@coder/auto-fix`, `auto-fix.aip`). */
const agentName = (name) => (BUILTIN.test(String(name)) ? `pro@coder/${String(name).replace(BUILTIN, '$2')}` : String(name));

/** What one run shows a user: exit code, files, user sub-agent calls, AI calls. */
export function observe(run, promptFile) {
  const trace = Array.isArray(run.json?.trace) ? run.json.trace : [];
  const calls = trace
    .filter((e) => e.kind === 'agent_call' && e.caller === 'pro@coder' && !agentName(e.agent).startsWith('pro@coder'))
    .map((e) => {
      const input = { ...(e.inputs?.[0] ?? {}) };
      delete input._display;
      return { agent: e.agent, input, output: e.afterAll ?? e.outputs?.[0] ?? null, error: e.error ?? null };
    });
  const ai = trace.filter((e) => e.kind === 'ai').map((e) => ({ agent: agentName(e.agent), model: e.model, files: filesSent(e.prompt) }));
  const files = { ...run.files };
  const prompt = files[promptFile];
  delete files[promptFile];
  const error = run.code === 0 ? undefined : (run.json?.message ?? run.json?.error ?? run.stderr.trim().split('\n').pop());
  return { exitCode: run.code, error, files, prompt, calls, ai };
}

const isEmptyTable = (v) => (Array.isArray(v) && v.length === 0) || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
const show = (v) => (v === undefined ? 'absent' : JSON.stringify(v).slice(0, 160));

/** Pushes `{ path, up, ours }` for every place two JSON values differ (an empty array and object are equal: one Lua table). */
export function deepDiff(up, ours, path, out, options = {}) {
  if (isEmptyTable(up) && isEmptyTable(ours)) return out;
  if (up !== null && ours !== null && typeof up === 'object' && typeof ours === 'object' && Array.isArray(up) === Array.isArray(ours)) {
    const keys = new Set([...Object.keys(up), ...Object.keys(ours)]);
    for (const k of keys) {
      if (VOLATILE_KEYS.has(k)) continue;
      if (!(k in up) && options.oursOnly?.(path, k)) continue;
      const sub = Array.isArray(up) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      deepDiff(up[k], ours[k], sub, out, options);
    }
    return out;
  }
  if (JSON.stringify(up) !== JSON.stringify(ours)) out.push({ path, up, ours });
  return out;
}

/**
 * The prompt file as compared: everything above the first `====` line as it is; below it, each answer without
 * the `> ` lines that head it (each pack writes its run's info there in its own words: model, tokens, files).
 */
export function promptView(text) {
  if (text === undefined) return undefined;
  const at = text.search(/^====$/m);
  if (at < 0) return text;
  const answers = text
    .slice(at)
    .split(/^====\n/m)
    .filter((a) => a !== '')
    .map((a) => a.replace(/^(>[^\n]*\n)+/, '').trim());
  return `${text.slice(0, at)}${answers.map((a) => `====\n${a}\n`).join('')}`;
}

/** A report of answers as compared: each answer below its `====` line without the `> ` info lines that head it. */
export function answersView(text) {
  return promptView(`====\n${text.replace(/^\n+/, '')}`);
}

/** Every difference between two observations: `{ area, path, up, ours }`. */
export function compare(up, ours) {
  const diffs = [];
  const add = (area) => (d) => diffs.push({ area, ...d });
  if (up.exitCode !== ours.exitCode) {
    const say = (o) => (o.error ? `${o.exitCode} (${o.error})` : o.exitCode);
    diffs.push({ area: 'exit code', path: '', up: say(up), ours: say(ours) });
  }
  for (const p of [...new Set([...Object.keys(up.files), ...Object.keys(ours.files)])].sort()) {
    const view = (text) => (ANSWER_REPORTS.test(p) && text !== undefined ? answersView(text) : text);
    if (view(up.files[p]) !== view(ours.files[p])) diffs.push({ area: 'files', path: p, up: up.files[p], ours: ours.files[p] });
  }
  const [upPrompt, oursPrompt] = [promptView(up.prompt), promptView(ours.prompt)];
  if (upPrompt !== oursPrompt) diffs.push({ area: 'prompt file', path: '', up: upPrompt, ours: oursPrompt });
  const n = Math.max(up.calls.length, ours.calls.length);
  for (let i = 0; i < n; i++) {
    const u = up.calls[i];
    const o = ours.calls[i];
    const label = `call ${i + 1} (${(u ?? o).agent})`;
    if (!u || !o || u.agent !== o.agent) {
      diffs.push({ area: 'sub-agent', path: `${label}`, up: u?.agent, ours: o?.agent });
      continue;
    }
    const oursOnly = (path, key) => OURS_ONLY_INPUT_KEYS[path.replace(/\[\d+\]/g, '[]')]?.has(key) === true;
    deepDiff({ input: u.input, output: u.output, error: u.error }, { input: o.input, output: o.output, error: o.error }, '', [], { oursOnly }).forEach((d) =>
      diffs.push({ area: 'sub-agent', path: `${label} ${d.path}`, up: d.up, ours: d.ours }),
    );
  }
  deepDiff(up.ai, ours.ai, 'ai', []).forEach(add('ai calls'));
  return diffs;
}

/** `{ status: 'agree' | 'known' | 'documented' | 'differs', known: labels, diffs: unexplained ones, all }`. */
export function classify(diffs, scenario) {
  const unexplained = [];
  const known = new Set();
  for (const d of diffs) {
    const rule = KNOWN.find((k) => k.test(d));
    if (rule) known.add(rule.label);
    else unexplained.push(d);
  }
  if (unexplained.length > 0 && scenario.documented) return { status: 'documented', known: [...known], diffs: unexplained, all: diffs };
  if (unexplained.length > 0) return { status: 'differs', known: [...known], diffs: unexplained, all: diffs };
  return { status: known.size > 0 ? 'known' : 'agree', known: [...known], diffs: [], all: diffs };
}

const TSX = () => pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs `coder-subagents run` on a copy of the scenario, with this pack or (upstreamDir) upstream's installed over it. */
export function runScenario(scenario, engine, upstreamDir) {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), `oracle-${scenario.name}-`));
  try {
    cpSync(scenario.dir, ws, { recursive: true });
    if (upstreamDir) {
      const target = nodePath.join(ws, '.aipack/pack/custom/pro/coder');
      mkdirSync(nodePath.dirname(target), { recursive: true });
      cpSync(upstreamDir, target, { recursive: true });
    } else mkdirSync(nodePath.join(ws, '.aipack'), { recursive: true });
    const args = ['--import', TSX(), BIN, 'run', scenario.prompt, '--workspace', ws, '--ai', nodePath.join(ws, 'ai.toml')];
    args.push('--aipack-version', scenario.aipackVersion, '--engine', engine, '--write', '--json', '--trace');
    const r = spawnSync(process.execPath, args, { cwd: ws, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
    const local = (text) => String(text ?? '').split(ws).join(WORKSPACE_MARK);
    let json;
    try {
      json = JSON.parse(local(r.stdout));
    } catch {
      json = undefined;
    }
    const files = snapshot(ws);
    for (const p of Object.keys(files)) files[p] = CODE_MAP_FILE.test(p) ? codeMapView(files[p], ws) : local(files[p]);
    return { code: r.status ?? -1, json, stderr: local(r.stderr), files };
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

/** Runs every scenario on every engine: `[{ scenario, engine, result }]`. */
export function runOracle({ upstream, scenariosDir, engines, only, onResult }) {
  const dirs = readdirSync(scenariosDir)
    .filter((n) => statSync(nodePath.join(scenariosDir, n)).isDirectory())
    .filter((n) => !only || only.includes(n))
    .sort();
  const rows = [];
  for (const name of dirs) {
    const scenario = loadScenario(nodePath.join(scenariosDir, name));
    const promptFile = `${scenario.prompt}/coder-prompt.md`;
    for (const engine of engines) {
      const ours = runScenario(scenario, engine);
      const up = runScenario(scenario, engine, upstream);
      // a run that printed no report (the CLI crashed, or was killed) compares nothing: it is an error, not an agreement
      const crashed = [['upstream', up], ['ours', ours]].filter(([, r]) => r.json === undefined);
      const result = crashed.length > 0
        ? { status: 'error', known: [], all: [], diffs: crashed.map(([who, r]) => ({ area: 'run', path: who, up: undefined, ours: `no report (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}` })) }
        : classify(compare(observe(up, promptFile), observe(ours, promptFile)), scenario);
      const row = { scenario, engine, result, stderr: { up: up.stderr, ours: ours.stderr } };
      rows.push(row);
      onResult?.(row);
    }
  }
  return rows;
}

/** One line per difference, for the report. */
export function describeDiff(d) {
  return `${d.area}${d.path ? ` ${d.path}` : ''}: upstream ${show(d.up)}, ours ${show(d.ours)}`;
}

/** The table: scenario | one column per engine | the differences and why. */
export function formatTable(rows, engines) {
  const byScenario = new Map();
  for (const r of rows) {
    if (!byScenario.has(r.scenario.name)) byScenario.set(r.scenario.name, []);
    byScenario.get(r.scenario.name).push(r);
  }
  const word = (r) => ({ agree: 'agree', known: 'agree (known)', documented: 'documented', differs: 'DIFFERS', error: 'ERROR' })[r.result.status];
  const lines = [`| scenario | ${engines.join(' | ')} | difference and why |`, `|---|${engines.map(() => '---|').join('')}---|`];
  for (const [name, rs] of byScenario) {
    const why = [];
    for (const label of new Set(rs.flatMap((r) => r.result.known))) why.push(`${label}: ${KNOWN.find((k) => k.label === label).reason}`);
    const documented = rs.find((r) => r.result.status === 'documented');
    if (documented) why.push(`documented: ${documented.scenario.documented}`);
    const first = rs.find((r) => r.result.status === 'differs' || r.result.status === 'error');
    if (first) why.push(`${first.result.diffs.length} difference(s), first: ${describeDiff(first.result.diffs[0])}`);
    const cols = engines.map((e) => {
      const r = rs.find((x) => x.engine === e);
      return r ? word(r) : '-';
    });
    lines.push(`| ${name} | ${cols.join(' | ')} | ${why.join('; ').replace(/\|/g, '\\|').replace(/\n/g, '\\n') || ''} |`);
  }
  return lines.join('\n');
}

function usage(message) {
  process.stderr.write(`error: ${message}\nusage: npm run oracle -- --upstream <dir of pro/coder> [--scenarios DIR] [--engine fengari,lua54] [--only NAME,...] [--verbose] [--json]\n`);
  process.exit(2);
}

if (process.argv[1] && nodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opts = { scenariosDir: nodePath.join(ROOT, 'fixtures/oracle'), engines: ['fengari', 'lua54'], verbose: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => args[++i] ?? usage(`${a} needs a value`);
    if (a === '--upstream') opts.upstream = nodePath.resolve(value());
    else if (a === '--scenarios') opts.scenariosDir = nodePath.resolve(value());
    else if (a === '--engine') opts.engines = value().split(',');
    else if (a === '--only') opts.only = value().split(',');
    else if (a === '--verbose') opts.verbose = true;
    else if (a === '--json') opts.json = true;
    else usage(`unknown argument ${a}`);
  }
  if (!opts.upstream) usage('--upstream is required (a checkout of aipack-ai/packs-pro pro/coder)');
  if (!existsSync(nodePath.join(opts.upstream, 'main.aip'))) usage(`${opts.upstream} has no main.aip: give the pro/coder folder of aipack-ai/packs-pro`);
  for (const e of opts.engines) if (e !== 'fengari' && e !== 'lua54') usage(`unknown engine ${e} (fengari or lua54)`);
  const rows = runOracle({
    ...opts,
    onResult: (r) => {
      if (opts.json) return;
      process.stderr.write(`${r.scenario.name} [${r.engine}]: ${r.result.status}\n`);
      if (opts.verbose) for (const d of r.result.all) process.stderr.write(`  ${describeDiff(d)}\n`);
    },
  });
  if (opts.json) {
    const out = rows.map((r) => ({ scenario: r.scenario.name, engine: r.engine, status: r.result.status, known: r.result.known, diffs: r.result.diffs.map(describeDiff) }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else process.stdout.write(`${formatTable(rows, opts.engines)}\n`);
  process.exit(rows.some((r) => r.result.status === 'differs' || r.result.status === 'error') ? 1 : 0);
}
