/**
 * `aip.yaml.*` (since AIPack 0.8.12): parse -> list of documents, stringify (one document),
 * stringify_multi_docs (list -> documents separated by "---").
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// loaded on the first aip.yaml call: it is the slowest module to load and most runs never use it
let yamlLib: typeof Yaml | undefined;
const lib = () => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
import { LuaError, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { optStr, toLuaData } from './pure-args.ts';

/** YAML text -> one value per document (bridge data). Throws the first syntax error's message. */
export function parseYamlDocs(text: string): unknown[] {
  const out: unknown[] = [];
  for (const doc of lib().parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(doc.errors[0].message);
    out.push(toLuaData(doc.toJS()));
  }
  return out;
}

function parse(content: unknown): unknown[] | undefined {
  const s = optStr(content, 'aip.yaml.parse');
  if (s === undefined) return undefined;
  try {
    return parseYamlDocs(s);
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

export const yaml: AipNamespaceFactory = () => ({ parse, stringify, stringify_multi_docs });
