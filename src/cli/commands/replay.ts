import type { Command } from 'commander';
import pc from 'picocolors';
import { stringify as stringifyToml } from 'smol-toml';
import nodePath from 'node:path';
import type { RecordDifference } from '../../harness/record-compare.ts';
import { caseOf } from '../../harness/record-import.ts';
import { replayRecord, type ReplayResult } from '../../harness/replay.ts';
import type { RunRecord } from '../../harness/record-file.ts';
import { addEngineOption, engineOf } from '../engine-flag.ts';
import { UsageError, type SetExit } from '../errors.ts';
import { toJsonValue, truncate } from '../format.ts';
import { answersFromFile, loadRecord, recordWorkspace } from './record.ts';
import { isValidVersion } from '../../aip/catalog.ts';

interface ReplayCliOptions {
  workspace?: string;
  ai?: string;
  aipackVersion?: string;
  engine?: string;
  json?: boolean;
}

const CLASS_TITLES: Record<RecordDifference['class'], string> = {
  workspace: 'the workspace changed since the record',
  nondeterminism: 'nondeterminism (times, ids, random numbers)',
  simulator: 'simulator differences (report them with the case below each)',
};

const show = (v: unknown): string => truncate(typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'nothing', 100);

/** A ready contract case of the recorded call behind a simulator difference: what AIPack did, as an expectation. */
function readyCase(d: RecordDifference, record: RunRecord): string | undefined {
  if (!d.call) return undefined;
  const c = caseOf(d.call, 1, record, {});
  return stringifyToml({ agent: nodePath.basename(d.call.name), case: [c] });
}

function formatResult(r: ReplayResult, record: RunRecord): string {
  const lines: string[] = [];
  lines.push(`replay of run ${record.run.id} (${record.run.time ?? 'time unknown'}): ${r.engine}, AIPack ${r.aipackVersion}, ${r.steps} recorded steps`);
  for (const n of r.notes) lines.push(`${pc.yellow('note')}: ${n}`);
  if (r.error) lines.push(`${pc.red('error')}: the replay did not finish: ${r.error}`);
  for (const cls of ['workspace', 'nondeterminism', 'simulator'] as const) {
    const list = r.differences.filter((d) => d.class === cls);
    if (list.length === 0) continue;
    lines.push(pc.bold(`${CLASS_TITLES[cls]}: ${list.length}`));
    for (const d of list) {
      lines.push(`  ${d.step}${d.path ? ` › ${d.path}` : ''}: recorded ${show(d.recorded)}, replayed ${show(d.replayed)}`);
      lines.push(pc.dim(`    ${d.why}`));
      if (cls === 'simulator') {
        const text = readyCase(d, record);
        if (text) lines.push(...text.trimEnd().split('\n').map((l) => `    ${l}`));
      }
    }
  }
  const simulator = r.differences.filter((d) => d.class === 'simulator').length;
  if (!r.error && r.differences.length === 0) lines.push(pc.green('agree: every step of the replay matches the record'));
  else if (!r.error && simulator === 0) lines.push(pc.green('agree, but for the workspace and nondeterminism above'));
  else lines.push(pc.red(`differs: ${simulator} simulator difference${simulator === 1 ? '' : 's'}${r.error ? ', and the replay did not finish' : ''}`));
  return lines.join('\n');
}

/** `coder-subagents replay <run>`: runs a recorded run again on the simulator and compares it with the record. */
export function register(program: Command, setExit: SetExit): void {
  const cmd = program
    .command('replay <run>')
    .description('run a recorded run again on the simulator and compare every step with the record (<run>: a record folder, a run id, or latest); exit 0 when they agree')
    .option('--workspace <dir>', 'workspace directory (default: the nearest one with .aipack/)')
    .option('--ai <file>', "scripted answers for the sub-agents' own model calls (the coder's answers come from the record)")
    .option('--aipack-version <version>', 'simulated AIPack version (default: the record\'s)')
    .option('--json', 'print one JSON object');
  addEngineOption(cmd).action(async (run: string, o: ReplayCliOptions) => {
    const workspaceDir = recordWorkspace(o);
    const record = loadRecord(run, workspaceDir);
    if (o.aipackVersion !== undefined && !isValidVersion(o.aipackVersion)) throw new UsageError(`--aipack-version ${o.aipackVersion}: expected MAJOR.MINOR.PATCH, e.g. 0.8.33`);
    const answers = o.ai !== undefined ? answersFromFile(o.ai) : undefined;
    const result = await replayRecord(record, {
      workspaceDir,
      ...(o.engine !== undefined ? { engine: engineOf(o.engine) } : {}),
      ...(o.aipackVersion !== undefined ? { aipackVersion: o.aipackVersion } : {}),
      ...(answers ? { answers } : {}),
    });
    const simulator = result.differences.filter((d) => d.class === 'simulator').length;
    if (o.json) {
      const json = {
        record: record.dir,
        engine: result.engine,
        aipack_version: result.aipackVersion,
        agree: !result.error && simulator === 0,
        ...(result.error ? { error: result.error } : {}),
        notes: result.notes,
        steps: result.steps,
        differences: result.differences.map(({ call, ...d }) => ({ ...d, ...(d.class === 'simulator' && call ? { case: readyCase({ ...d, call }, record) } : {}) })),
      };
      process.stdout.write(JSON.stringify(toJsonValue(json), null, 2) + '\n');
    } else {
      process.stdout.write(formatResult(result, record) + '\n');
    }
    if (result.error || simulator > 0) setExit(1);
  });
}
