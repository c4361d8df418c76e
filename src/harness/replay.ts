import nodePath from 'node:path';
import { isValidVersion, DEFAULT_AIPACK_VERSION } from '../aip/catalog.ts';
import { loadEngine, type EngineName } from '../engine/index.ts';
import { ScriptedAi, type ScriptedResponse } from '../runtime/ai.ts';
import { REPO_PACK } from '../runtime/packs.ts';
import { Simulator } from '../runtime/simulator.ts';
import { compareRecords, type RecordDifference } from './record-compare.ts';
import { parseRecord, RECORD_DIR, type RunRecord } from './record-file.ts';
import { regexEscape, type ScriptedAnswer } from './record-import.ts';

/**
 * `replay`: a recorded run, run again on the simulator: the prompt as it was read, the coder's answers as they
 * were received, the workspace as it is now. Its own record (the replay records itself, as the recorded run did)
 * is then compared with the original, step by step (record-compare.ts).
 */

export interface ReplayOptions {
  workspaceDir: string;
  /** default: lua54 when the record ran Lua 5.4 (as AIPack does), else fengari */
  engine?: EngineName;
  /** default: the record's AIPack version, when the simulator knows that form */
  aipackVersion?: string;
  /** answers for the sub-agents' own model calls (a record holds only their final answers) */
  answers?: ScriptedAnswer[];
  timeoutMs?: number;
}

export interface ReplayResult {
  engine: EngineName;
  aipackVersion: string;
  /** the run's error (a sub-agent's model call with no answer, a Lua error), when it did not finish */
  error?: string;
  /** the replay's own record, when the run got that far */
  replayed?: RunRecord;
  differences: RecordDifference[];
  /** facts about the comparison the reader should know (engine, version, what the record cut) */
  notes: string[];
  /** steps compared */
  steps: number;
}

const CODER = 'pro@coder';

/** The coder's answers of the record, one per task, each matched to its task by the task's first working file. */
export function coderAnswers(record: RunRecord): ScriptedResponse[] {
  const working = new Map<number, string | undefined>();
  for (const e of record.events) if (e.kind === 'files_sent') working.set(e.task_num, e.working?.[0]?.path);
  return record.events.flatMap((e) => {
    if (e.kind !== 'ai') return [];
    const file = working.get(e.task_num);
    return [{
      agent: CODER,
      content: e.content ?? '',
      ...(e.model ? { model: e.model } : {}),
      ...(file ? { match: `WORKING_FILE file_path="${regexEscape(file)}"` } : {}),
    }];
  });
}

function engineFor(record: RunRecord, asked: EngineName | undefined): EngineName {
  if (asked) return asked;
  return record.run.lua_version === 'Lua 5.4' ? 'lua54' : 'fengari';
}

function notesFor(record: RunRecord, engine: EngineName, version: string): string[] {
  const notes: string[] = [];
  const lua = record.run.lua_version ?? 'an unknown Lua';
  if (engine === 'fengari' && (record.run.lua_version === 'Lua 5.4' || record.run.integer_bits === 64)) {
    notes.push(`the record ran ${lua} with ${record.run.integer_bits ?? '?'}-bit integers; this replay ran on fengari (Lua 5.3, 32-bit integers): replay with --engine lua54 for the same numbers`);
  }
  if (record.run.aipack_version && record.run.aipack_version !== version) {
    notes.push(`the record ran AIPack ${record.run.aipack_version}; this replay simulated ${version}`);
  }
  if (record.run.cut?.length) notes.push(`the record cut long values at ${record.run.cut.join(', ')}: the replay starts from the cut text`);
  return notes;
}

/** Finds the replay's own record among the files the run wrote (in memory), and reads it. */
function replayRecordOf(sim: Simulator, promptDir: string, originalId: string): RunRecord | undefined {
  const snapshot = sim.vfs.snapshot();
  const base = nodePath.relative(sim.workspaceDir, nodePath.join(promptDir, RECORD_DIR)).split(nodePath.sep).join('/');
  for (const [rel, content] of snapshot) {
    const m = rel.startsWith(base + '/') ? /^([^/]+)\/run\.json$/.exec(rel.slice(base.length + 1)) : null;
    if (!m || m[1] === originalId || content === null) continue;
    const events = snapshot.get(`${base}/${m[1]}/events.ndjson`) ?? '';
    return parseRecord(nodePath.join(promptDir, RECORD_DIR, m[1]!), content, events ?? '');
  }
  return undefined;
}

/** Runs a recorded run again and compares the two records. */
export async function replayRecord(record: RunRecord, options: ReplayOptions): Promise<ReplayResult> {
  const engine = engineFor(record, options.engine);
  const recorded = record.run.aipack_version;
  const aipackVersion = options.aipackVersion ?? (recorded && isValidVersion(recorded) ? recorded : DEFAULT_AIPACK_VERSION);
  await loadEngine(engine);
  const answers: ScriptedResponse[] = [
    ...coderAnswers(record),
    ...(options.answers ?? []).filter((a) => a.agent !== CODER),
  ];
  const sim = new Simulator({
    workspaceDir: options.workspaceDir,
    engine,
    aipackVersion,
    ai: ScriptedAi.fromList(answers, `record ${record.run.id}`),
    packs: [REPO_PACK],
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  const promptFile = nodePath.resolve(options.workspaceDir, record.run.prompt_path);
  const promptDir = nodePath.dirname(promptFile);
  // the prompt as the run read it (its answers part is not in the record): in memory only, like every replay write
  sim.vfs.writeFile(promptFile, record.run.first_part + '====\n');
  // the run's input as it was given (another machine's absolute path read as this workspace's)
  const input = record.run.input;
  const inputs = input === undefined || input === null
    ? undefined
    : [typeof input === 'string' ? input.split(record.run.workspace_dir).join(options.workspaceDir) : input];
  const notes = notesFor(record, engine, aipackVersion);
  let error: string | undefined;
  try {
    const outcome = sim.run({ name: CODER, inputs, baseDir: options.workspaceDir });
    if (outcome.skipped !== undefined) error = `the replay was skipped: ${outcome.skipped}`;
  } catch (err) {
    error = (err as Error).message;
  }
  const replayed = replayRecordOf(sim, promptDir, record.run.id);
  if (!replayed) {
    return { engine, aipackVersion, error: error ?? 'the replay wrote no record (the recorded prompt has no record = true?)', differences: [], notes, steps: 0 };
  }
  const differences = compareRecords(record, replayed, { workspaceDir: options.workspaceDir, promptDir });
  return { engine, aipackVersion, ...(error ? { error } : {}), replayed, differences, notes, steps: record.events.length };
}
