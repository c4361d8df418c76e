/** A case file's problems as one-line errors naming the file, the case and the key, and what was expected. */
import { suggest } from '../support/suggest.ts';
import { AiAnswerTableSchema, CaseFileSchema, CaseSchema, CoderResponseTableSchema, ExpectSchema, PrevItemSchema, ResponsesItemSchema, TaskSchema, UsageSchema } from './case-schema.ts';

/** A problem of a case file (or of a runStage request): the CLI exits with code 2. */
export class CaseFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly caseName?: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'CaseFileError';
  }
}


/** The known keys of the table at a zod path, for "did you mean". */
function keysAt(path: PropertyKey[]): string[] {
  const p = path.map(String);
  if (p.length === 0) return Object.keys(CaseFileSchema.shape);
  if (p[0] !== 'case') return [];
  if (p.length === 2) return Object.keys(CaseSchema.shape);
  const k = p[2];
  if (p.length === 3 && k === 'expect') return Object.keys(ExpectSchema.shape);
  if (p.length === 3 && k === 'task') return Object.keys(TaskSchema.shape);
  if (p.length === 4 && k === 'responses') return Object.keys(ResponsesItemSchema.shape);
  if (p.length === 4 && k === 'ai') return Object.keys(AiAnswerTableSchema.shape);
  if (p.length === 4 && k === 'prev') return Object.keys(PrevItemSchema.shape);
  if (p.length === 3 && k === 'response') return Object.keys(CoderResponseTableSchema.shape);
  if (p.length === 4 && k === 'response' && p[3] === 'usage') return Object.keys(UsageSchema.shape);
  return [];
}

/** A value's type in TOML words. */
function tomlType(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date/time';
  switch (typeof v) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return Number.isInteger(Number(v)) ? 'an integer' : 'a float';
    case 'boolean':
      return 'a boolean';
    default:
      return 'a table';
  }
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'a table',
  record: 'a table',
};

export interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  expected?: string;
  keys?: string[];
  errors?: Issue[][];
  minimum?: number | bigint;
  origin?: string;
  values?: unknown[];
}

/** One line for a zod issue, without the location. */
function describeIssue(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `missing (expected ${EXPECTED[issue.expected ?? ''] ?? issue.expected})`;
      return `expected ${EXPECTED[issue.expected ?? ''] ?? issue.expected}, got ${tomlType(issue.input)}`;
    case 'invalid_value':
      return `expected one of ${(issue.values ?? []).map(String).join(', ')}, got ${JSON.stringify(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`;
      return `must be at least ${issue.minimum}`;
    default:
      return issue.message;
  }
}

/** `unknown key 'promt' (did you mean 'prompt'?) (allowed: ...)`: the keys of a table that has no such keys. */
export function unknownKeysMessage(unknown: readonly string[], known: readonly string[]): string {
  const hint = unknown.map((k) => {
    const s = suggest(k, known);
    return s ? `'${k}' (did you mean '${s}'?)` : `'${k}'`;
  });
  const allowed = known.length > 0 ? ` (allowed: ${known.join(', ')})` : '';
  return `unknown key${unknown.length > 1 ? 's' : ''} ${hint.join(', ')}${allowed}`;
}

/** Where a zod path points, in the file's words: `case #2 "name"` and `expect.params`. */
function locate(raw: unknown, path: PropertyKey[]): { caseLabel?: string; caseName?: string; key: string } {
  const p = [...path];
  let caseLabel: string | undefined;
  let caseName: string | undefined;
  if (p[0] === 'case' && typeof p[1] === 'number') {
    const cases = (raw as { case?: unknown[] }).case;
    const name = Array.isArray(cases) ? (cases[p[1]] as { name?: unknown } | undefined)?.name : undefined;
    caseName = typeof name === 'string' && name !== '' ? name : undefined;
    caseLabel = `case #${p[1] + 1}${caseName ? ` ${JSON.stringify(caseName)}` : ''}`;
    p.splice(0, 2);
  }
  let key = '';
  for (const seg of p) key += typeof seg === 'number' ? `[${seg + 1}]` : key === '' ? String(seg) : `.${String(seg)}`;
  return { caseLabel, caseName, key };
}

export function issueError(file: string, raw: unknown, issue: Issue): CaseFileError {
  // A union of "string or table" given a table: the table branch says what is wrong inside it.
  if (issue.code === 'invalid_union' && issue.errors && typeof issue.input === 'object' && issue.input !== null && !Array.isArray(issue.input)) {
    const branch = issue.errors[issue.errors.length - 1] ?? [];
    const inner = branch.find((i) => i.code === 'unrecognized_keys') ?? branch[0];
    if (inner) return issueError(file, raw, { ...inner, path: [...issue.path, ...inner.path] });
  }
  const loc = locate(raw, issue.path);
  const prefix = [file, loc.caseLabel, loc.key || undefined].filter(Boolean).join(': ');
  if (issue.code === 'unrecognized_keys') {
    const unknown = issue.keys ?? [];
    // the error's key is the first unknown key, not the table holding it
    const key = locate(raw, [...issue.path, unknown[0] ?? '']).key;
    return new CaseFileError(`${prefix}: ${unknownKeysMessage(unknown, keysAt(issue.path))}`, file, loc.caseName, key);
  }
  if (loc.key === 'case' && issue.input === undefined) {
    return new CaseFileError(`${file}: no [[case]] table: a case file needs at least one case`, file, undefined, 'case');
  }
  return new CaseFileError(`${prefix}: ${describeIssue(issue)}`, file, loc.caseName, loc.key);
}
