import nodePath from 'node:path';
import * as z from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { exists, isDirectory, listNames, readIfFile, readText } from '../support/host-fs.ts';

/**
 * A run record, as the pack writes it when the prompt's meta block says `record = true` (lua/recorder.lua):
 * `<prompt_dir>/.cache/records/<run id>/run.json` and `events.ndjson`. docs/record.md describes the format.
 */

/** The format the pack writes; a reader takes every format in RECORD_FORMATS (1 wrote every input in full). */
export const RECORD_FORMAT = 2;
export const RECORD_FORMATS: readonly number[] = [1, 2];
export const RECORD_DIR = nodePath.join('.cache', 'records');

const Table = z.record(z.string(), z.unknown());
/** aip.json writes an empty Lua table as `[]` or `{}`: both mean "no keys" */
const LuaTable = z.union([Table, z.array(z.unknown()).max(0).transform((): Record<string, unknown> => ({}))]);
const StringList = z.union([z.array(z.string()), Table.refine((t) => Object.keys(t).length === 0).transform(() => [] as string[])]);

export const RunHeaderSchema = z.looseObject({
  format: z.number().refine((n) => RECORD_FORMATS.includes(n)),
  id: z.string().min(1),
  time: z.string().optional(),
  aipack_version: z.string().optional(),
  pack: LuaTable.optional(),
  lua_version: z.string().optional(),
  integer_bits: z.number().optional(),
  workspace_dir: z.string().min(1),
  prompt_path: z.string().min(1),
  prompt_dir: z.string().min(1),
  /** the run's first input as given (the prompt folder or file), absent for the default prompt */
  input: z.unknown().optional(),
  meta: LuaTable,
  inst: z.string(),
  first_part: z.string(),
  cut: z.array(z.string()).optional(),
});

const FileFactSchema = z.looseObject({ path: z.string(), size: z.number(), hash: z.string() });
const FileFacts = z.union([z.array(FileFactSchema), Table.refine((t) => Object.keys(t).length === 0).transform(() => [])]);

const common = { cut: z.array(z.string()).optional() };

export const SubAgentEventSchema = z.looseObject({
  kind: z.literal('sub_agent'),
  name: z.string(),
  /** the entry; the pack leaves it out when the input holds it as agent_config */
  config: LuaTable.optional(),
  stage: z.string(),
  event: z.string().optional(),
  task_num: z.number().optional(),
  input: LuaTable,
  /** what of the input the previous sub-agent input holds (format 2): parseRecord puts it back and drops this */
  input_refs: z.record(z.string(), z.union([z.literal('same'), z.looseObject({ from: z.number().int().min(1), count: z.number().int().min(0) })])).optional(),
  response: z.unknown().optional(),
  error: z.string().optional(),
  duration_ms: z.number().optional(),
  ...common,
});

export const ParamsEventSchema = z.looseObject({
  kind: z.literal('params'),
  stage: z.string(),
  task_num: z.number().optional(),
  params: LuaTable,
  ...common,
});

export const FilesSentEventSchema = z.looseObject({
  kind: z.literal('files_sent'),
  task_num: z.number(),
  knowledge: FileFacts.optional(),
  context: FileFacts.optional(),
  working: FileFacts.optional(),
  attachments: z.unknown().optional(),
  ...common,
});

export const AiEventSchema = z.looseObject({
  kind: z.literal('ai'),
  task_num: z.number(),
  model: z.string().optional(),
  content: z.string().optional(),
  usage: z.unknown().optional(),
  ...common,
});

export const FilesWrittenEventSchema = z.looseObject({
  kind: z.literal('files_written'),
  task_num: z.number(),
  changed: StringList.optional(),
  failed: StringList.optional(),
  ...common,
});

export const RecordEventSchema = z.discriminatedUnion('kind', [
  SubAgentEventSchema,
  ParamsEventSchema,
  FilesSentEventSchema,
  AiEventSchema,
  FilesWrittenEventSchema,
]);

export type RunHeader = z.infer<typeof RunHeaderSchema>;
export type RecordEvent = z.infer<typeof RecordEventSchema>;
export type SubAgentEvent = z.infer<typeof SubAgentEventSchema>;
export type FilesSentEvent = z.infer<typeof FilesSentEventSchema>;
export type AiEvent = z.infer<typeof AiEventSchema>;

export interface RunRecord {
  /** the record's folder (absolute) */
  dir: string;
  run: RunHeader;
  events: RecordEvent[];
}

/** A record that cannot be read: the message names the file and, for an event, its line. */
export class RecordError extends Error {
  override name = 'RecordError';
}

function issueText(err: z.ZodError): string {
  const issue = err.issues[0]!;
  const where = issue.path.length ? issue.path.map(String).join('.') + ': ' : '';
  return where + issue.message;
}

/** Parses a record from its two files' text; `dir` names them in messages. */
export function parseRecord(dir: string, runText: string, eventsText: string): RunRecord {
  const runFile = nodePath.join(dir, 'run.json');
  let rawRun: unknown;
  try {
    rawRun = JSON.parse(runText);
  } catch (err) {
    throw new RecordError(`${runFile}: not JSON (${(err as Error).message})`);
  }
  const format = (rawRun as { format?: unknown })?.format;
  if (typeof format !== 'number' || !RECORD_FORMATS.includes(format)) {
    throw new RecordError(`${runFile}: record format ${JSON.stringify(format)} is not one this version reads (expected ${RECORD_FORMATS.join(' or ')})`);
  }
  const run = RunHeaderSchema.safeParse(rawRun);
  if (!run.success) throw new RecordError(`${runFile}: ${issueText(run.error)}`);
  const eventsFile = nodePath.join(dir, 'events.ndjson');
  const events: RecordEvent[] = [];
  // the last sub-agent input, rebuilt: what the next one names of it (input_refs) is taken from it
  let previousInput: Record<string, unknown> | undefined;
  const lines = eventsText.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      // a run stopped mid-write leaves a torn last line: the events before it are still the run's
      if (i === last) return;
      throw new RecordError(`${eventsFile}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    // a line is one event, or the list of events a stage wrote in one go
    const items = Array.isArray(raw) ? raw : [raw];
    items.forEach((item, j) => {
      const parsed = RecordEventSchema.safeParse(item);
      if (!parsed.success) throw new RecordError(`${eventsFile}:${i + 1}${Array.isArray(raw) ? `[${j + 1}]` : ''}: ${issueText(parsed.error)}`);
      const e = parsed.data;
      if (e.kind === 'sub_agent') {
        if (e.input_refs !== undefined) {
          const where = `${eventsFile}:${i + 1}${Array.isArray(raw) ? `[${j + 1}]` : ''}`;
          e.input = withRefs(e.input, e.input_refs, previousInput, where);
          delete e.input_refs;
        }
        previousInput = e.input;
      }
      if (e.kind === 'sub_agent' && e.config === undefined) {
        const config = e.input.agent_config;
        e.config = typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : { name: e.name };
      }
      events.push(e);
    });
  });
  return { dir, run: run.data, events };
}

/**
 * A sub-agent input with what it names of the input before it put back (lua/recorder.lua): "same" is that input's
 * value, { from, count } a list starting with `count` of its items from `from`, then the items recorded here.
 */
function withRefs(input: Record<string, unknown>, refs: NonNullable<SubAgentEvent['input_refs']>, before: Record<string, unknown> | undefined, where: string): Record<string, unknown> {
  if (before === undefined) throw new RecordError(`${where}: input_refs names the input before it, but no sub-agent input comes before it`);
  const out: Record<string, unknown> = { ...input };
  for (const [key, ref] of Object.entries(refs)) {
    const prev = before[key];
    if (prev === undefined) throw new RecordError(`${where}: input_refs.${key}: the input before it has no ${key}`);
    if (ref === 'same') {
      out[key] = structuredClone(prev);
      continue;
    }
    const list = emptyAsList(prev);
    const rest = emptyAsList(input[key] ?? []);
    if (!Array.isArray(list) || !Array.isArray(rest)) throw new RecordError(`${where}: input_refs.${key}: expected lists, here and in the input before it`);
    if (ref.from - 1 + ref.count > list.length) {
      throw new RecordError(`${where}: input_refs.${key}: items ${ref.from}..${ref.from + ref.count - 1} of a list of ${list.length}`);
    }
    out[key] = [...structuredClone(list.slice(ref.from - 1, ref.from - 1 + ref.count)), ...rest];
  }
  return out;
}

/** aip.json writes an empty Lua table as `[]` or `{}`: as a list, both are empty */
const emptyAsList = (v: unknown): unknown => (isTable(v) && Object.keys(v).length === 0 ? [] : v);

/** Reads the record in `dir` (the folder holding run.json). */
export function readRecord(dir: string): RunRecord {
  const runFile = nodePath.join(dir, 'run.json');
  if (!exists(runFile)) throw new RecordError(`${dir}: no run.json here: not a run record (records are in <prompt dir>/${RECORD_DIR}/<run id>/)`);
  const eventsFile = nodePath.join(dir, 'events.ndjson');
  return parseRecord(dir, readText(runFile), exists(eventsFile) ? readText(eventsFile) : '');
}

/** The record folders under the workspace's prompt folders (`.aipack/.prompt/<pack>/.cache/records/*`), oldest first. */
export function listRecords(workspaceDir: string): string[] {
  const promptRoot = nodePath.join(workspaceDir, '.aipack', '.prompt');
  const out: string[] = [];
  for (const pack of isDirectory(promptRoot) ? listNames(promptRoot) : []) {
    const records = nodePath.join(promptRoot, pack, RECORD_DIR);
    if (!isDirectory(records)) continue;
    for (const id of listNames(records)) {
      const dir = nodePath.join(records, id);
      if (exists(nodePath.join(dir, 'run.json'))) out.push(dir);
    }
  }
  // run ids are UUID v7: their text order is their time order
  return out.sort((a, b) => (nodePath.basename(a) < nodePath.basename(b) ? -1 : 1));
}

/**
 * The record a command names: a folder holding run.json, `latest` (the newest in the workspace), or a run id (or
 * its start) found in the workspace's prompt folders.
 */
export function findRecord(arg: string, workspaceDir: string, cwd = process.cwd()): string {
  const asPath = nodePath.resolve(cwd, arg);
  if (exists(nodePath.join(asPath, 'run.json'))) return asPath;
  const all = listRecords(workspaceDir);
  if (arg === 'latest') {
    const last = all.at(-1);
    if (!last) throw new RecordError(`no run record in ${workspaceDir} (a run records itself when its prompt's meta block has record = true)`);
    return last;
  }
  const hits = all.filter((dir) => nodePath.basename(dir).startsWith(arg));
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) throw new RecordError(`run id '${arg}' matches ${hits.length} records: ${hits.map((d) => nodePath.basename(d)).join(', ')}`);
  const known = all.map((d) => nodePath.basename(d));
  throw new RecordError(
    `no run record '${arg}': not a folder with run.json, nor a run id in ${workspaceDir}${known.length ? ` (records: ${known.slice(-5).join(', ')})` : ' (it has no records)'}`,
  );
}

export const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The hash the pack records (aip.hash.sha256_b64u: SHA-256, base64url without padding). */
export function hashOf(bytes: Uint8Array | string): string {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  return Buffer.from(sha256(data)).toString('base64url');
}

/** A file a task sent to the coder, and how it is on disk now. */
export interface SentFile {
  task: number;
  path: string;
  /** its bytes now (undefined when it is gone) */
  now?: Uint8Array;
  /** still as the run sent it (same hash) */
  same: boolean;
  /** one of the files the run's own answers changed */
  writtenByRun: boolean;
}

/** Every file each task sent, read from the workspace as it is now, in record order. */
export function sentFilesNow(record: RunRecord, workspaceDir: string): SentFile[] {
  const written = new Set(record.events.flatMap((e) => (e.kind === 'files_written' ? (e.changed ?? []) : [])));
  const out: SentFile[] = [];
  for (const e of record.events) {
    if (e.kind !== 'files_sent') continue;
    for (const f of [...(e.knowledge ?? []), ...(e.context ?? []), ...(e.working ?? [])]) {
      const now = readIfFile(nodePath.resolve(workspaceDir, f.path));
      out.push({ task: e.task_num, path: f.path, now, same: now !== undefined && hashOf(now) === f.hash, writtenByRun: written.has(f.path) });
    }
  }
  return out;
}
