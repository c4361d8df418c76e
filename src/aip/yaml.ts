/**
 * `aip.yaml.*` (since AIPack 0.8.12): parse -> list of documents, stringify (one document),
 * stringify_multi_docs (list -> documents separated by "---").
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// loaded on the first aip.yaml call: it is the slowest module to load and most runs never use it
let yamlLib: typeof Yaml | undefined;
const lib = () => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
import { LuaError, luaTypeName, MAX_DEPTH } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { toLuaData } from './pure-args.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

/** Levels a parsed document may nest: the list of documents adds one, and the engines take MAX_DEPTH. */
const MAX_YAML_DEPTH = MAX_DEPTH - 2;

/** true when `v` nests deeper than `max` levels of lists and maps. */
function tooDeep(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length > 0) {
    const [cur, depth] = stack.pop()!;
    if (cur === null || typeof cur !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(cur)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * YAML text -> one value per document (bridge data). Throws the first syntax error's first line: the parser's
 * own message quotes the input around the error, which may be anything the agent read.
 */
export function parseYamlDocs(text: string): unknown[] {
  const out: unknown[] = [];
  let docs: ReturnType<typeof Yaml.parseAllDocuments>;
  try {
    docs = lib().parseAllDocuments(text);
  } catch (err) {
    if (err instanceof RangeError) throw new Error(`the value is nested too deeply (at most ${MAX_YAML_DEPTH} levels)`);
    throw err;
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) {
      const first = doc.errors[0];
      const message = first.message.split('\n')[0]!.replace(/:$/, '');
      throw new Error(/call stack/i.test(message) ? `the value is nested too deeply (at most ${MAX_YAML_DEPTH} levels)` : message);
    }
    let value: unknown;
    try {
      value = doc.toJS();
    } catch (err) {
      if (err instanceof RangeError) throw new Error(`the value is nested too deeply (at most ${MAX_YAML_DEPTH} levels)`);
      throw err;
    }
    if (tooDeep(value, MAX_YAML_DEPTH)) throw new Error(`the value is nested deeper than ${MAX_YAML_DEPTH} levels`);
    out.push(toLuaData(value));
  }
  return out;
}

function parse(content: string | undefined): unknown[] | undefined {
  if (content === undefined) return undefined;
  try {
    return parseYamlDocs(content);
  } catch (e) {
    throw new LuaError(`aip.yaml.parse failed. ${(e as Error).message}`);
  }
}

function checkData(v: unknown, fnName: string): void {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean') return;
  if (typeof v === 'number') return;
  if (Array.isArray(v)) return v.forEach((x) => checkData(x, fnName));
  if (typeof v === 'object') return Object.values(v).forEach((x) => checkData(x, fnName));
  throw new LuaError(`${fnName} fail to stringify. Cannot serialize a ${luaTypeName(v)} to YAML`);
}

// keys sorted, like the serde_json map AIPack serializes from
const docText = (v: unknown): string => lib().stringify(v === undefined ? null : v, { sortMapEntries: true });

function stringify(content: unknown): string {
  checkData(content, 'aip.yaml.stringify');
  return docText(content);
}

function stringify_multi_docs(content: unknown): string {
  if (!Array.isArray(content)) {
    throw new LuaError('aip.yaml.stringify_multi_docs failed. Content must be a list of tables.');
  }
  checkData(content, 'aip.yaml.stringify_multi_docs');
  return content.map(docText).join('---\n');
}

const YAML = withArgChecks('yaml', { parse, stringify, stringify_multi_docs });

export const yaml: AipNamespaceFactory = sharedNamespace(YAML);
