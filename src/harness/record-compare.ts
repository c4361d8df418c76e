import { isTable, sentFilesNow, type RecordEvent, type RunRecord, type SubAgentEvent } from './record-file.ts';

/**
 * Compares a run record with the record of its replay, step by step, and classes each difference:
 * - `workspace`: a file the run sent has changed on disk since (its hash differs), or the difference follows from
 *   such a file in the same task;
 * - `nondeterminism`: the values differ only in times, UUIDs or random numbers;
 * - `simulator`: anything else: the simulator did not do what AIPack did (a bug to report, with a ready case).
 */

export type DifferenceClass = 'workspace' | 'nondeterminism' | 'simulator';

export interface RecordDifference {
  class: DifferenceClass;
  /** the step: `sub_agent pre my-agents/x.aip #1`, `params pre_task task 2`, `files_sent task 1`, ... */
  step: string;
  /** where in the step's value (`response.coder_params.model`), '' for the step as a whole */
  path: string;
  recorded: unknown;
  replayed: unknown;
  why: string;
  /** the recorded sub-agent call (for a simulator difference: the source of a ready contract case) */
  call?: SubAgentEvent;
}

export interface CompareContext {
  /** the workspace the replay ran in (current files are read from it) */
  workspaceDir: string;
  /** the replay's prompt folder (absolute) */
  promptDir: string;
}

interface Step {
  key: string;
  task?: number;
  value: unknown;
  event: RecordEvent;
}

/** Steps keyed so the same step of two runs meets: by kind, stage, event, task and the nth call of an agent. */
function stepsOf(events: RecordEvent[]): Map<string, Step> {
  const steps = new Map<string, Step>();
  const seen = new Map<string, number>();
  for (const e of events) {
    let key: string;
    let value: unknown;
    switch (e.kind) {
      case 'sub_agent': {
        const where = `${e.stage}${e.event && e.event !== 'start' && e.event !== 'end' ? ` on ${e.event}` : ''}${e.task_num !== undefined ? ` task ${e.task_num}` : ''}`;
        const base = `sub_agent ${where} ${e.name}`;
        const n = (seen.get(base) ?? 0) + 1;
        seen.set(base, n);
        key = `${base} #${n}`;
        value = { input: e.input, ...(e.error !== undefined ? { error: e.error } : { response: e.response ?? null }) };
        break;
      }
      case 'params':
        key = `params ${e.stage}${e.task_num !== undefined ? ` task ${e.task_num}` : ''}`;
        value = e.params;
        break;
      case 'files_sent':
        key = `files_sent task ${e.task_num}`;
        value = { knowledge: e.knowledge ?? [], context: e.context ?? [], working: e.working ?? [] };
        break;
      case 'ai':
        key = `ai task ${e.task_num}`;
        value = { model: e.model ?? null };
        break;
      case 'files_written':
        key = `files_written task ${e.task_num}`;
        value = { changed: e.changed ?? [], failed: e.failed ?? [] };
        break;
    }
    const task = 'task_num' in e && typeof e.task_num === 'number' ? e.task_num : undefined;
    steps.set(key, { key, task, value, event: e });
  }
  return steps;
}

/** Lua has one table type: an empty list and an empty map are the same value */
const isEmpty = (v: unknown): boolean => (Array.isArray(v) && v.length === 0) || (isTable(v) && Object.keys(v).length === 0);

/** Leaf differences of two JSON values: [path, a, b]. */
function leafDiffs(a: unknown, b: unknown, path: string, out: Array<[string, unknown, unknown]>): void {
  if (isEmpty(a) && isEmpty(b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) leafDiffs(a[i], b[i], `${path}[${i + 1}]`, out);
    return;
  }
  if (isTable(a) && isTable(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      leafDiffs(a[k] ?? undefined, b[k] ?? undefined, path ? `${path}.${k}` : k, out);
    }
    return;
  }
  const norm = (v: unknown) => (v === null ? undefined : v);
  if (Object.is(norm(a), norm(b))) return;
  out.push([path, a, b]);
}

const ISO_TIME = /\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const USAGE = /(^|\.)usage\./;
const TIME_KEY = /(^|[._\[])(time|timestamp|date|now|duration|elapsed|ms|seconds|epoch|random|rand|seed|uuid|id|mtime|ctime|atime)s?($|[._\]0-9])/i;

/** Whether two values differ only where a run's time, ids or random numbers go. */
function nondeterministic(path: string, a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    const strip = (s: string) => s.replace(ISO_TIME, '<time>').replace(UUID, '<uuid>');
    const stripped = strip(a);
    return stripped !== a && stripped === strip(b);
  }
  if (typeof a === 'number' && typeof b === 'number') return TIME_KEY.test(path);
  return false;
}

/** A recorded run's paths written as the replay's: the real workspace and prompt folder become the replay's. */
function localizer(record: RunRecord, ctx: CompareContext): (v: unknown) => unknown {
  const pairs: Array<[string, string]> = [
    [record.run.prompt_dir, ctx.promptDir],
    [record.run.workspace_dir, ctx.workspaceDir],
  ].filter(([from, to]) => from !== to) as Array<[string, string]>;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      let s = v;
      for (const [from, to] of pairs) s = s.split(from).join(to);
      return s;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isTable(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk;
}

/** The tasks whose files changed on disk since the run (a file's current hash is not the recorded one). */
function changedFiles(record: RunRecord, workspaceDir: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const f of sentFilesNow(record, workspaceDir)) {
    if (f.same) continue;
    // a file the run wrote itself differs from what it sent: that is the run's own doing, not a later change
    const why = f.writtenByRun ? `${f.path} (written by the run: replay before applying, or from a clean checkout)` : f.path;
    out.set(f.task, [...(out.get(f.task) ?? []), why]);
  }
  return out;
}

/** Every difference between a record and its replay's record, classed. */
export function compareRecords(recorded: RunRecord, replayed: RunRecord, ctx: CompareContext): RecordDifference[] {
  const local = localizer(recorded, ctx);
  const a = stepsOf(recorded.events);
  const b = stepsOf(replayed.events);
  const changed = changedFiles(recorded, ctx.workspaceDir);
  const anyChanged = [...new Set([...changed.values()].flat())];
  const out: RecordDifference[] = [];
  const classOf = (step: Step, path: string, x: unknown, y: unknown): { class: DifferenceClass; why: string } => {
    if (nondeterministic(path, x, y)) return { class: 'nondeterminism', why: 'differs only in a time, an id or a random number' };
    if (USAGE.test(path)) return { class: 'nondeterminism', why: "token counts are the model's: a replayed answer's are estimated" };
    const files = step.task !== undefined ? changed.get(step.task) : anyChanged.length > 0 && step.event.kind === 'sub_agent' && step.event.stage === 'post' ? anyChanged : undefined;
    if (files && files.length > 0) return { class: 'workspace', why: `files changed since the run: ${files.join(', ')}` };
    return { class: 'simulator', why: 'the simulator did not do what the recorded run did' };
  };
  for (const [key, step] of a) {
    const other = b.get(key);
    const call = step.event.kind === 'sub_agent' ? step.event : undefined;
    if (!other) {
      const c = classOf(step, '', step.value, undefined);
      out.push({ ...c, step: key, path: '', recorded: 'ran', replayed: 'did not run', ...(call ? { call } : {}) });
      continue;
    }
    const diffs: Array<[string, unknown, unknown]> = [];
    leafDiffs(local(step.value), other.value, '', diffs);
    for (const [path, x, y] of diffs) {
      const c = classOf(step, path, x, y);
      out.push({ ...c, step: key, path, recorded: x, replayed: y, ...(call ? { call } : {}) });
    }
  }
  for (const [key, step] of b) {
    if (a.has(key)) continue;
    const c = classOf(step, '', undefined, step.value);
    out.push({ ...c, step: key, path: '', recorded: 'did not run', replayed: 'ran' });
  }
  return out;
}
