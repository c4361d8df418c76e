/**
 * Runs contract cases: each case through the pack's pipeline (run-stage.ts), then the checks that always apply
 * (the contract, warnings) and the case's expectations.
 */
import nodePath from 'node:path';
import type { RunView } from '../report/run-view.ts';
import { MAX_REDOS, type SubAgentStage } from '../contract/index.ts';
import { CaseFileError, loadContractFile, type AiPromptExpectation, type ContractCase, type ContractFile } from './case-file.ts';
import { diffValues, show } from './compare.ts';
import { relativeKeyProblem } from '../support/paths.ts';
import { orderCheck, prepareSubject } from './group.ts';
import type { AgentUnderTest } from './agent-discovery.ts';
import { runPreparedStage } from './run-stage.ts';
import type { HarnessOptions } from './stage-request.ts';
import type { StageResult } from './stage-result.ts';

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseResult {
  /** the case file (absolute) */
  file: string;
  name: string;
  /** 1-based position in the file */
  index: number;
  stage: SubAgentStage;
  /** an event-form case: the event dispatched to the agent */
  event?: string;
  status: CaseStatus;
  /** why the case failed: one or more lines, each problem naming what differs */
  message?: string;
  warnings: string[];
  /** the stage run (absent for a skipped case) */
  result?: StageResult;
  /** wall time of the case (its stage run and checks), in milliseconds */
  ms: number;
  /** the data of its run's HTML report (SuiteOptions.runViews) */
  run?: RunView;
}

export interface RunOptions extends HarnessOptions {
  /** warnings fail the case */
  strict?: boolean;
  /** run only cases whose file path or name contains this text (case-insensitive); the others are left out */
  filter?: string;
  /** run only cases whose name (or `file › name`) matches this regex (`-t` of vitest and jest) */
  testNamePattern?: RegExp;
  /** group cases: also run the members in other orders and fail when the result differs (`order_check`) */
  orderCheck?: boolean;
  /** told the name of each case before it runs (e.g. for a deadline's message) */
  onCase?: (name: string, file: string) => void;
}

export interface ContractFileResult {
  file: string;
  /** the agent under test as the file names it */
  agent: string;
  cases: CaseResult[];
  /** files and dirs whose changes affect these cases (case file, agent, its lua/ dir, support paths) */
  watch: string[];
  /** the agent's .aip file (absolute) */
  agentFile: string;
}

/**
 * What the whole stage changed (every sub-agent it ran, a sub_agents_next tail included), for `unchanged`:
 * the stage's result against its starting point, not one response.
 */
function changesOf(r: StageResult): string[] {
  const out: string[] = [];
  const before = r.before.params;
  const keys = new Set([...Object.keys(before), ...Object.keys(r.params)]);
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const k of [...keys].sort()) {
    if (!(k in before) || before[k] === undefined) {
      if (r.params[k] !== undefined) added.push(k);
    } else if (!(k in r.params) || r.params[k] === undefined) removed.push(k);
    else if (diffValues(k, before[k], r.params[k]).length > 0) changed.push(k);
  }
  const parts = [
    added.length ? `added ${added.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
    removed.length ? `removed ${removed.join(', ')}` : '',
  ].filter(Boolean);
  if (parts.length) out.push(`params (${parts.join('; ')})`);
  if (diffValues('prompts', r.before.prompts, r.prompts).length > 0) out.push(`prompts (now ${show(r.prompts)})`);
  if (r.stage === 'post_task' && r.response !== r.before.response) out.push('response (replaced)');
  const files = Object.keys(r.files);
  if (files.length) out.push(`files (${files.join(', ')})`);
  return out;
}

/** `expect.ai_prompts`: the prompts sent to the model, in order; a string is the exact text, `{ match }` a regex. */
function aiPromptProblems(want: AiPromptExpectation[], got: string[]): string[] {
  const problems: string[] = [];
  if (want.length !== got.length) {
    problems.push(`ai_prompts: expected ${want.length} prompt${want.length === 1 ? '' : 's'} sent to the model, got ${got.length}`);
  }
  want.forEach((w, i) => {
    const label = `ai_prompts[${i + 1}]`;
    const actual = got[i];
    if (actual === undefined) return;
    if (typeof w === 'string') problems.push(...diffValues(label, w, actual));
    else if (!new RegExp(w.match).test(actual)) {
      problems.push(`${label}: expected a match for /${w.match}/, got:\n  ${actual.split('\n').join('\n  ')}`);
    }
  });
  return problems;
}

/** `expect.members`: each member's agent_result, or a failure whose message matches `error`. */
function memberProblems(want: NonNullable<ContractCase['expect']['members']>, r: StageResult): string[] {
  if (r.members === undefined) return ['expect.members: only a group case (group = { parallel = [...] }) has members'];
  if (want.length !== r.members.length) return [`members: expected ${want.length}, the group has ${r.members.length}`];
  const problems: string[] = [];
  want.forEach((w, i) => {
    const got = r.members![i]!;
    const label = `members[${i + 1}] (${got.name})`;
    if (w.error !== undefined) {
      if (got.ok) problems.push(`${label}: expected it to fail with an error matching /${w.error}/, but it succeeded`);
      else if (!new RegExp(w.error).test(got.error ?? '')) problems.push(`${label}.error: expected a match for /${w.error}/, got ${show(got.error)}`);
    } else if (!got.ok) {
      problems.push(`${label}: failed: ${got.error}`);
    }
    if ('agent_result' in w) problems.push(...diffValues(`${label}.agent_result`, w.agent_result, got.agent_result));
  });
  return problems;
}

/** `expect.emit`, `expect.agent_on` and `expect.redo` of an event-form case. */
function eventProblems(x: ContractCase['expect'], r: StageResult): string[] {
  const problems: string[] = [];
  if (x.emit !== undefined) problems.push(...listProblem('emit', x.emit, r.emitted ?? []));
  if (x.agent_on !== undefined) {
    problems.push(...listProblem('agent_on', typeof x.agent_on === 'string' ? [x.agent_on] : x.agent_on, r.agentOn ?? []));
  }
  if (x.redo !== undefined) {
    const redo = r.redo ?? { requested: false, started: false };
    if (x.redo && !redo.requested) problems.push('redo: expected the pack to start a redo, but the agent did not ask for one (coder_redo = true)');
    else if (x.redo && !redo.started) {
      problems.push(`redo: the agent asked for a redo (coder_redo = true), but the pack starts none: ${redoRefusal(redo.pin)}`);
    } else if (!x.redo && redo.started) problems.push('redo: expected no redo, but the agent asked for one (coder_redo = true) and the pack starts a new run');
  }
  return problems;
}

/** Why the pack started no redo, from the pin it showed. */
function redoRefusal(pin: string | undefined): string {
  const count = /Redo count: (\d+)/.exec(pin ?? '')?.[1];
  if (count !== undefined) return `the cap of ${MAX_REDOS} redos is reached (redo_count = ${count})`;
  return pin?.split('\n')[0] ?? 'no reason shown';
}

/** A list expectation compared as a whole: `key: expected [...], got [...]`. */
function listProblem(key: string, want: string[], got: string[]): string[] {
  const same = want.length === got.length && want.every((w, i) => w === got[i]);
  return same ? [] : [`${key}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`];
}

/** The problems of a finished stage run against the case's expectations and the always-on checks. */
export function checkCase(c: ContractCase, r: StageResult, strict = false): string[] {
  const problems: string[] = [];
  const x = c.expect;
  if (x.error !== undefined) {
    const re = new RegExp(x.error);
    if (r.ok) problems.push(`expected the stage to fail with an error matching /${x.error}/, but it succeeded`);
    else if (!re.test(r.error ?? '')) problems.push(`error: expected a match for /${x.error}/, got:\n  ${(r.error ?? '').split('\n').join('\n  ')}`);
  } else if (!r.ok) {
    problems.push(`the stage failed: ${r.error}`);
    if (/no scripted AI response/.test(r.error ?? '')) {
      problems.push(`(the sub-agent made more AI calls than the case's ai list answers: it has ${c.ai.length})`);
    }
  }
  // The pack validates responses with the generated Lua contract; the zod contract must agree.
  if (r.ok && r.effect?.error !== undefined) {
    problems.push(`${r.effect.error} (src/contract rejects the response the pack accepted: is pack/ built from the current contract?)`);
  }
  if (r.ok) {
    if (x.params !== undefined) problems.push(...diffValues('params', x.params, r.params));
    if (x.params_contains !== undefined) {
      for (const [k, v] of Object.entries(x.params_contains)) problems.push(...diffValues(`params.${k}`, v, r.params[k]));
    }
    if (x.prompts !== undefined) problems.push(...diffValues('prompts', x.prompts, r.prompts));
    if (x.prompt !== undefined) problems.push(...diffValues('prompt', x.prompt, r.prompt));
    if (x.response !== undefined) problems.push(...diffValues('response', x.response, r.response));
    const response = (typeof r.rawResponse === 'object' && r.rawResponse !== null ? r.rawResponse : {}) as Record<string, unknown>;
    if ('agent_result' in x) problems.push(...diffValues('agent_result', x.agent_result, response.agent_result));
    if (x.sub_agents_next !== undefined) problems.push(...diffValues('sub_agents_next', x.sub_agents_next, response.sub_agents_next));
    if (x.unchanged !== undefined) {
      const changes = changesOf(r);
      if (x.unchanged && changes.length > 0) problems.push(`unchanged: expected no change, but the stage changed ${changes.join(', ')}`);
      if (!x.unchanged && changes.length === 0) problems.push('unchanged = false: expected a change, but the stage changed nothing');
    }
  }
  if (r.ok) problems.push(...eventProblems(x, r));
  if (x.ai_prompts !== undefined) problems.push(...aiPromptProblems(x.ai_prompts, r.aiPrompts));
  if (x.members !== undefined) problems.push(...memberProblems(x.members, r));
  for (const [path, want] of Object.entries(x.files ?? {})) {
    const label = `files[${JSON.stringify(path)}]`;
    // a hand-built case (the library's checkCase) is held to the case file's rule: nothing outside the sandbox
    const keyProblem = relativeKeyProblem(path);
    if (keyProblem) {
      problems.push(`${label}: ${keyProblem}`);
      continue;
    }
    const got = r.readFile(path);
    if (got === undefined) problems.push(`${label}: missing (expected ${show(want)})`);
    else problems.push(...diffValues(label, want, got));
  }
  if (strict && r.warnings.length > 0) {
    const n = r.warnings.length;
    problems.push(`--strict: ${n === 1 ? 'the warning' : `the ${n} warnings`} below fail${n === 1 ? 's' : ''} this case`);
  }
  return problems;
}

/**
 * Runs one case: `file` is a case file path or a loaded file, `c` a case or its name. `agent` (from
 * prepareAgent) can be shared by the cases of a file; it is prepared from the file when omitted.
 * Throws CaseFileError for a harness problem (malformed file, unknown case name, missing agent).
 *
 *   const r = runCase('agents/refiner.contract.toml', 'adds a focus line');
 *   expect(r.status, r.message).toBe('passed');
 */
export function runCase(
  fileOrPath: ContractFile | string,
  caseOrName: ContractCase | string,
  options: RunOptions = {},
  agent?: AgentUnderTest,
): CaseResult {
  const file = typeof fileOrPath === 'string' ? loadContractFile(fileOrPath) : fileOrPath;
  let c: ContractCase;
  if (typeof caseOrName === 'string') {
    const found = file.cases.find((x) => x.name === caseOrName);
    if (!found) {
      throw new CaseFileError(`${file.file}: no case named "${caseOrName}" (cases: ${file.cases.map((x) => `"${x.name}"`).join(', ')})`, file.file, caseOrName, 'name');
    }
    c = found;
  } else {
    c = caseOrName;
  }
  const t0 = performance.now();
  const base = { file: file.file, name: c.name, index: c.index, stage: c.stage, ...(c.event !== undefined ? { event: c.event } : {}) };
  if (c.skip) return { ...base, status: 'skipped', warnings: [], ms: 0 };
  options.onCase?.(c.name, file.file);
  const subject = agent ?? prepareSubject(file, options, file.file);
  const result = runPreparedStage(subject, c, options);
  const problems = checkCase(c, result, options.strict);
  if (subject.group && (c.orderCheck ?? options.orderCheck)) {
    const problem = orderCheck(subject, c, result, options);
    if (problem) problems.push(problem);
  }
  return {
    ...base,
    status: problems.length === 0 ? 'passed' : 'failed',
    ...(problems.length > 0 ? { message: problems.join('\n') } : {}),
    warnings: result.warnings,
    result,
    ms: performance.now() - t0,
  };
}

/** True when a case is selected by a filter text (file path or case name, case-insensitive) and a name pattern. */
export function matchesFilter(file: string, name: string, filter: string | undefined, pattern?: RegExp): boolean {
  if (pattern && !pattern.test(name) && !pattern.test(`${file} › ${name}`)) return false;
  if (!filter) return true;
  const f = filter.toLowerCase();
  return name.toLowerCase().includes(f) || file.toLowerCase().includes(f) || `${file} › ${name}`.toLowerCase().includes(f);
}

/**
 * Loads a case file and runs its cases, in order. Throws CaseFileError when the file is malformed or its agent
 * cannot be found (before any case runs).
 *
 * Cases run sequentially here; `test` can share a large suite's cases between two workers (isolated.ts), which
 * pays off only with spare cores: a worker costs ~0.8 s of CPU before its cases run at full speed.
 */
export function runContractFile(path: string, options: RunOptions = {}): ContractFileResult {
  const file = loadContractFile(path);
  const agent = prepareSubject(file, options, path);
  const cases = file.cases
    .filter((c) => matchesFilter(path, c.name, options.filter, options.testNamePattern))
    .map((c) => runCase(file, c, options, agent));
  return { file: file.file, agent: file.agent, cases, watch: watchOf(file, agent), agentFile: agent.file };
}

/** What a change of re-runs a file's cases: the case file, the agent, its lua/ dir and support paths. */
export function watchOf(file: ContractFile, agent: AgentUnderTest): string[] {
  return [file.file, ...agent.watch.map((p) => nodePath.resolve(p))];
}
