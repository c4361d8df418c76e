import nodePath from 'node:path';
import * as z from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { exists, isDirectory, listNames, readIfFile, readText } from '../support/host-fs.ts';

/**
 * A run record, as the pack writes it when the prompt's meta block says `record = true` (lua/recorder.lua):
 * `<prompt_dir>/.cache/records/<run id>/run.json` and `events.ndjson`. docs/record.md describes the format.
 */

/**
 * The format the pack writes; a reader takes every format in RECORD_FORMATS (1 wrote every input in full, 2 named
 * runs of the input before it).
 */
export const RECORD_FORMAT = 3;
export const RECORD_FORMATS: readonly number[] = [1, 2, 3];
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

/**
 * One named value: "same" (the input before it's), a count (that input's first items, then those written here),
 * positions in the stage's entry list (format 3), or a run of that input's list (format 2).
 */
const InputRef = z.union([
  z.literal('same'),
  z.number().int().min(1),
  z.array(z.number().int().min(1)).min(1),
  z.looseObject({ from: z.number().int().min(1), count: z.number().int().min(0) }),
]);

export const SubAgentEventSchema = z.looseObject({
  kind: z.literal('sub_agent'),
  name: z.string(),
  /** the entry; the pack leaves it out when the input holds it as agent_config */
  config: LuaTable.optional(),
  stage: z.string(),
  event: z.string().optional(),
  task_num: z.number().optional(),
  input: LuaTable,
  /** what of the input is named, not written (formats 2 and 3): parseRecord puts it back and drops this */
  input_refs: z.record(z.string(), InputRef).optional(),
  /** the stage's entry list, from this event on, that positions in input_refs name (format 3): dropped once read */
  stage_entries: z.array(z.unknown()).optional(),
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
    throw new RecordError(`${runFile}: record format ${JSON.stringify(format)} is not one this version reads (expected ${RECORD_FORMATS.slice(0, -1).join(', ')} or ${RECORD_FORMATS.at(-1)})`);
  }
  const run = RunHeaderSchema.safeParse(rawRun);
  if (!run.success) throw new RecordError(`${runFile}: ${issueText(run.error)}`);
  const eventsFile = nodePath.join(dir, 'events.ndjson');
  const events: RecordEvent[] = [];
  // what an input names is taken from these: the last sub-agent input, rebuilt, and the last stage entry list
  const named: Named = { previousInput: undefined, stageEntries: undefined };
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
        if (e.stage_entries !== undefined) {
          named.stageEntries = e.stage_entries;
          delete e.stage_entries;
        }
        if (e.input_refs !== undefined) {
          const where = `${eventsFile}:${i + 1}${Array.isArray(raw) ? `[${j + 1}]` : ''}`;
          e.input = withRefs(e.input, e.input_refs, named, where);
          delete e.input_refs;
        }
        named.previousInput = e.input;
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

interface Named {
  previousInput: Record<string, unknown> | undefined;
  stageEntries: unknown[] | undefined;
}

/**
 * A sub-agent input with what it names put back (lua/recorder.lua): "same" is the input before it's value; a count
 * n, the first n items of that input's list, then the items recorded here; positions, those items of the stage's
 * entry list (the last `stage_entries` before it), then the items recorded here; { from, count } (format 2), a run
 * of that input's list, then the items recorded here.
 */
function withRefs(input: Record<string, unknown>, refs: NonNullable<SubAgentEvent['input_refs']>, named: Named, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [key, ref] of Object.entries(refs)) {
    const rest = emptyAsList(input[key] ?? []);
    if (Array.isArray(ref)) {
      const entries = named.stageEntries;
      if (entries === undefined) throw new RecordError(`${where}: input_refs.${key} names positions in the stage's entry list, but no stage_entries comes before it`);
      const past = ref.find((p) => p > entries.length);
      if (past !== undefined) throw new RecordError(`${where}: input_refs.${key}: position ${past} of a stage entry list of ${entries.length}`);
      if (!Array.isArray(rest)) throw new RecordError(`${where}: input_refs.${key}: expected a list here`);
      out[key] = [...ref.map((p) => structuredClone(entries[p - 1])), ...rest];
      continue;
    }
    const before = named.previousInput;
    if (before === undefined) throw new RecordError(`${where}: input_refs names the input before it, but no sub-agent input comes before it`);
    const prev = before[key];
    if (prev === undefined) throw new RecordError(`${where}: input_refs.${key}: the input before it has no ${key}`);
    if (ref === 'same') {
      out[key] = structuredClone(prev);
      continue;
    }
    const { from, count } = typeof ref === 'number' ? { from: 1, count: ref } : ref;
    const list = emptyAsList(prev);
    if (!Array.isArray(list) || !Array.isArray(rest)) throw new RecordError(`${where}: input_refs.${key}: expected lists, here and in the input before it`);
    if (from - 1 + count > list.length) {
      throw new RecordError(`${where}: input_refs.${key}: items ${from}..${from + count - 1} of a list of ${list.length}`);
    }
    out[key] = [...structuredClone(list.slice(from - 1, from - 1 + count)), ...rest];
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
