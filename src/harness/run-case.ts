/**
 * Runs contract cases: each case through the pack's pipeline (stage.ts), then the checks that always apply
 * (the contract, warnings) and the case's expectations.
 */
import nodePath from 'node:path';
import type { Stage } from '../contract/index.ts';
import { CaseFileError, loadContractFile, type ContractCase, type ContractFile } from './case-file.ts';
import { diffValues, show } from './compare.ts';
import { prepareAgent, runPreparedStage, type AgentUnderTest, type HarnessOptions, type StageResult } from './stage.ts';

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseResult {
  /** the case file (absolute) */
  file: string;
  name: string;
  /** 1-based position in the file */
  index: number;
  stage: Stage;
  status: CaseStatus;
  /** why the case failed: one or more lines, each problem naming what differs */
  message?: string;
  warnings: string[];
  /** the stage run (absent for a skipped case) */
  result?: StageResult;
}

export interface RunOptions extends HarnessOptions {
  /** warnings fail the case */
  strict?: boolean;
  /** run only cases whose file path or name contains this text (case-insensitive); the others are left out */
  filter?: string;
  /** told the name of each case before it runs (e.g. for a deadline's message) */
  onCase?: (name: string) => void;
}

export interface ContractFileResult {
  file: string;
  /** the agent under test as the file names it */
  agent: string;
  cases: CaseResult[];
  /** files and dirs whose changes affect these cases (case file, agent, its lua/ dir, support paths) */
  watch: string[];
}

/** The line telling that a list of changes happened, for `unchanged` expectations. */
function changesOf(r: StageResult): string[] {
  const out: string[] = [];
  const e = r.effect;
  if (e?.params.replaced) {
    const parts = [
      e.params.added.length ? `added ${e.params.added.join(', ')}` : '',
      e.params.changed.length ? `changed ${e.params.changed.join(', ')}` : '',
      e.params.removed.length ? `removed ${e.params.removed.join(', ')}` : '',
    ].filter(Boolean);
    if (parts.length) out.push(`params (${parts.join('; ')})`);
  }
  if (e?.prompts.changed) out.push(`prompts (now ${show(e.prompts.after)})`);
  if (e?.coderResponse.replaced && e.coderResponse.after !== e.coderResponse.before) out.push('response (replaced)');
  const files = Object.keys(r.files);
  if (files.length) out.push(`files (${files.join(', ')})`);
  return out;
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
    if (x.unchanged !== undefined) {
      const changes = changesOf(r);
      if (x.unchanged && changes.length > 0) problems.push(`unchanged: expected no change, but the stage changed ${changes.join(', ')}`);
      if (!x.unchanged && changes.length === 0) problems.push('unchanged = false: expected a change, but the stage changed nothing');
    }
  }
  for (const [path, want] of Object.entries(x.files ?? {})) {
    const got = r.readFile(path);
    const label = `files["${path}"]`;
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
  const base = { file: file.file, name: c.name, index: c.index, stage: c.stage };
  if (c.skip) return { ...base, status: 'skipped', warnings: [] };
  options.onCase?.(c.name);
  const subject = agent ?? prepareAgent(file.agent, file.dir, file.support, options, file.file);
  const result = runPreparedStage(subject, c, options);
  const problems = checkCase(c, result, options.strict);
  return {
    ...base,
    status: problems.length === 0 ? 'passed' : 'failed',
    ...(problems.length > 0 ? { message: problems.join('\n') } : {}),
    warnings: result.warnings,
    result,
  };
}

/** True when a case is selected by a filter text (file path or case name, case-insensitive). */
export function matchesFilter(file: string, name: string, filter: string | undefined): boolean {
  if (!filter) return true;
  const f = filter.toLowerCase();
  return name.toLowerCase().includes(f) || file.toLowerCase().includes(f) || `${file} › ${name}`.toLowerCase().includes(f);
}

/**
 * Loads a case file and runs its cases, in order. Throws CaseFileError when the file is malformed or its agent
 * cannot be found (before any case runs).
 *
 * Cases run sequentially. Fengari is synchronous and a case takes 20-80 ms once warm; a worker thread first pays
 * ~1 s to load tsx, zod and fengari. Measured on 28 cases (2-core machine): 1 worker 2.4-2.5 s, 2 workers
 * 3.1-4.8 s. Worker threads would only pay off for hundreds of cases on many cores.
 */
export function runContractFile(path: string, options: RunOptions = {}): ContractFileResult {
  const file = loadContractFile(path);
  const agent = prepareAgent(file.agent, file.dir, file.support, options, path);
  const cases = file.cases
    .filter((c) => matchesFilter(path, c.name, options.filter))
    .map((c) => runCase(file, c, options, agent));
  return { file: file.file, agent: file.agent, cases, watch: [file.file, ...agent.watch.map((p) => nodePath.resolve(p))] };
}
