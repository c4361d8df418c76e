/**
 * Contract case files (`*.contract.toml`): the loader that turns a file into checked cases, over the schema
 * (case-schema.ts), where a case runs and what it may name (case-target.ts) and the wording of its problems
 * (case-file-errors.ts). Every problem is reported as a CaseFileError naming the file, the case and the key, and
 * what was expected.
 *
 *   agent = "prompt-refiner.aip"        # relative to this file, or ns@pack/name
 *   support = ["templates"]             # optional: more files/dirs (relative to this file) the agent needs
 *   [[case]]
 *   name = "adds a focus line"
 *   stage = "pre"
 *   ...
 *   [case.expect]
 *   ...
 */
import { exists, readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import * as z from 'zod';
import { CaseFileError, issueError, type Issue } from './case-file-errors.ts';
import { CaseFileSchema, CaseSchema, type ContractCase, type ContractFile } from './case-schema.ts';
import { caseProblem, caseTarget } from './case-target.ts';

// the case file's parts, for the modules that read case files
export { CaseFileError, unknownKeysMessage } from './case-file-errors.ts';
export {
  CaseFileSchema,
  CaseSchema,
  EVENT_RESPONSE_FIELDS,
  ExpectSchema,
  stageInputShape,
  type AiAnswer,
  type AiPromptExpectation,
  type CaseExpect,
  type CaseTask,
  type CoderResponseInput,
  type ContractCase,
  type ContractFile,
  type PrevItem,
  type ResponsesItem,
} from './case-schema.ts';
export { caseProblem, caseStage, caseTarget, chainRoot, configEvent } from './case-target.ts';

function toCase(c: z.infer<typeof CaseSchema>, index: number): ContractCase {
  const target = caseTarget(c);
  return {
    name: c.name,
    index,
    stage: target.stage,
    ...(target.event !== undefined ? { event: target.event } : {}),
    ...(c.on !== undefined ? { on: c.on } : {}),
    ...(c.during !== undefined ? { during: c.during } : {}),
    ...(c.redo_count !== undefined ? { redo_count: c.redo_count } : {}),
    skip: c.skip ?? false,
    ...(c.todo !== undefined ? { todo: c.todo } : {}),
    prompts: c.prompts ?? [c.prompt ?? ''],
    params: c.params ?? {},
    config: c.config ?? {},
    files: c.files ?? {},
    ai: c.ai ?? [],
    commands: c.commands,
    web: c.web,
    mocks: c.mocks,
    task: c.task,
    response: c.response,
    responses: c.responses,
    prev: c.prev,
    ...(c.order_check !== undefined ? { orderCheck: c.order_check } : {}),
    expect: c.expect ?? {},
  };
}

/** Parses and checks the text of a case file. `file` names it in messages and anchors relative paths. */
export function parseContractFile(text: string, file: string): ContractFile {
  const abs = nodePath.resolve(file);
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (err) {
    if (err instanceof TomlError) throw new CaseFileError(`${file}:${err.line}:${err.column}: invalid TOML: ${err.message.split('\n')[0]}`, file);
    throw err;
  }
  const parsed = CaseFileSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    const issues = parsed.error.issues as unknown as Issue[];
    // unknown keys first: a typo usually explains the "missing" error next to it; every table's unknown keys at
    // once (one line each), so that a file with several typos is fixed in one go
    const unknown = issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 1) {
      const errors = unknown.map((i) => issueError(file, raw, i));
      throw new CaseFileError(errors.map((e) => e.message).join('\n'), file, errors[0]!.caseName, errors[0]!.key);
    }
    throw issueError(file, raw, unknown[0] ?? issues[0]);
  }
  const data = parsed.data;
  if ((data.agent === undefined) === (data.group === undefined)) {
    throw new CaseFileError(`${file}: give agent (one sub-agent) or group (a parallel group), ${data.agent === undefined ? 'not neither' : 'not both'}`, file, undefined, 'agent');
  }
  const seen = new Map<string, number>();
  data.case.forEach((c, i) => {
    // quoted as JSON: a name holding a newline or a control character keeps the error on one line
    const label = `case #${i + 1} ${JSON.stringify(c.name)}`;
    const problem = caseProblem(c);
    if (problem) throw new CaseFileError(`${file}: ${label}: ${problem[0]}: ${problem[1]}`, file, c.name, problem[0]);
    const prev = seen.get(c.name);
    if (prev !== undefined) throw new CaseFileError(`${file}: ${label}: name: the same name as case #${prev} (names must be unique in a file)`, file, c.name, 'name');
    seen.set(c.name, i + 1);
  });
  const dir = nodePath.dirname(abs);
  for (const [i, s] of (data.support ?? []).entries()) {
    if (nodePath.isAbsolute(s)) throw new CaseFileError(`${file}: support[${i + 1}]: expected a path relative to the case file, got '${s}'`, file, undefined, `support[${i + 1}]`);
    if (!exists(nodePath.join(dir, s))) {
      throw new CaseFileError(`${file}: support[${i + 1}]: '${s}' not found (looked for ${nodePath.join(dir, s)})`, file, undefined, `support[${i + 1}]`);
    }
  }
  return {
    file: abs,
    dir,
    agent: data.agent ?? groupLabel(data.group!),
    ...(data.group ? { group: data.group } : {}),
    support: data.support ?? [],
    cases: data.case.map((c, i) => toCase(c, i + 1)),
  };
}

/** How a group under test is named in reports: its members, or its prompt-file entry. */
export function groupLabel(group: NonNullable<ContractFile['group']>): string {
  if ('entry' in group && typeof group.prompt === 'string') return `${group.prompt} sub_agents[${String(group.entry)}]`;
  const names = ((group as { parallel: unknown[] }).parallel).map((m) => (typeof m === 'string' ? m : String((m as Record<string, unknown>).name)));
  return `parallel(${names.join(', ')})`;
}

/** Reads, parses and checks a case file. */
export function loadContractFile(file: string): ContractFile {
  let text: string;
  try {
    text = readText(file);
  } catch (err) {
    throw new CaseFileError(`${file}: cannot read: ${(err as Error).message}`, file);
  }
  return parseContractFile(text, file);
}
