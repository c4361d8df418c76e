/**
 * A parallel group under test: tested like one sub-agent (a case scripts each member's answers and expects the
 * combined result), plus the order check: the members are also run in other orders, and the case fails when the
 * combined result depends on the order in which they ran.
 */
import { readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { promptMeta } from '../aip/md.ts';
import { isGroupEntry, normalizeEntry } from '../contract/index.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { CaseFileError, type ContractCase, type ContractFile } from './case-file.ts';
import { diffValues } from './compare.ts';
import { prepareAgent, type AgentUnderTest } from './agent-discovery.ts';
import { runPreparedStage } from './run-stage.ts';
import type { HarnessOptions } from './stage-request.ts';
import type { StageResult } from './stage-result.ts';

type GroupSpec = NonNullable<ContractFile['group']>;

/** Up to this many members every order is tried; beyond, the reversed order and a few seeded shuffles. */
export const ALL_ORDERS_UP_TO = 6;
const SHUFFLES = 4;


/** The group entry a spec names, and the directory its member names resolve from. */
function groupEntry(spec: GroupSpec, dir: string, where: string): { entry: Record<string, unknown>; base: string } {
  if (!('entry' in spec && typeof spec.prompt === 'string')) return { entry: spec as Record<string, unknown>, base: dir };
  const file = nodePath.resolve(dir, spec.prompt);
  const fail = (what: string) => new CaseFileError(`${where}: group: ${what}`, where, undefined, 'group');
  let meta: unknown;
  try {
    meta = promptMeta(readText(file));
  } catch (err) {
    throw fail(`cannot read the prompt file ${spec.prompt}: ${(err as Error).message}`);
  }
  const list = (meta as Record<string, unknown> | undefined)?.sub_agents;
  const entry = Array.isArray(list) ? list[Number(spec.entry) - 1] : undefined;
  if (!isGroupEntry(entry)) throw fail(`sub_agents[${String(spec.entry)}] of ${spec.prompt} is not a parallel group entry`);
  // the pack resolves member names from the workspace root of the prompt file
  return { entry: entry as Record<string, unknown>, base: findWorkspace(nodePath.dirname(file)) };
}

/** Prepares a group under test: every member read as an agent under test, their files together in one sandbox. */
export function prepareGroup(spec: GroupSpec, dir: string, support: string[], options: HarnessOptions, where: string, label: string): AgentUnderTest {
  const { entry, base } = groupEntry(spec, dir, where);
  const checked = normalizeEntry(entry, 'group');
  if (!checked.ok) throw new CaseFileError(`${where}: ${checked.message}`, where, undefined, 'group');
  const members = (checked.config.parallel as unknown as { name: string }[]).map((m) => m.name);
  const parts = members.map((name, i) => prepareAgent(name, base, i === 0 ? support : [], options, where));
  const files = new Map<string, Uint8Array>();
  for (const p of parts) for (const [k, v] of p.files) files.set(k, v);
  const packs = [...new Map(parts.flatMap((p) => p.packs).map((p) => [p.dir, p])).values()];
  return {
    name: label,
    file: parts[0]!.file,
    files,
    depth: Math.max(...parts.map((p) => p.depth)),
    packs,
    pack: parts[0]!.pack,
    watch: [...new Set(parts.flatMap((p) => p.watch))],
    group: { entry },
  };
}

/** The agent or group a case file tests. */
export function prepareSubject(file: ContractFile, options: HarnessOptions, where: string): AgentUnderTest {
  if (file.group) return prepareGroup(file.group, file.dir, file.support, options, where, file.agent);
  return prepareAgent(file.agent, file.dir, file.support, options, where);
}

// ---------------------------------------------------------------------------------------------------------------
// Order check

function permutations(n: number): number[][] {
  if (n <= 1) return [[0]];
  const out: number[][] = [];
  for (const rest of permutations(n - 1)) {
    for (let at = 0; at <= rest.length; at++) out.push([...rest.slice(0, at), n - 1, ...rest.slice(at)]);
  }
  return out;
}

/** A deterministic shuffle (seeded linear congruential generator), so a failure can be reproduced. */
function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let x = seed >>> 0;
  for (let i = n - 1; i > 0; i--) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const j = x % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The orders to try besides member order: every one up to 6 members, else reversed and 4 seeded shuffles. */
export function otherOrders(n: number): number[][] {
  const identity = (o: number[]) => o.every((v, i) => v === i);
  if (n <= ALL_ORDERS_UP_TO) return permutations(n).filter((o) => !identity(o));
  const out = [Array.from({ length: n }, (_, i) => n - 1 - i)];
  for (let s = 1; s <= SHUFFLES; s++) out.push(shuffled(n, s * 7919 + n));
  return out.filter((o) => !identity(o));
}

/** What must not depend on the order: the combined params, prompts, response, the history and the files. */
function outcomeOf(r: StageResult): Record<string, unknown> {
  return {
    ok: r.ok,
    error: r.error,
    params: r.params,
    prompts: r.prompts,
    response: r.response,
    history: r.members,
    files: r.files,
  };
}

const shown = (order: number[]) => order.map((i) => i + 1).join(', ');

/**
 * Runs the group's members in every other order and returns the problem of the first order whose outcome differs
 * from member order (naming both orders and what differs), or undefined.
 */
export function orderCheck(subject: AgentUnderTest, c: ContractCase, baseline: StageResult, options: HarnessOptions): string | undefined {
  const n = baseline.members?.length ?? 0;
  if (!subject.group || n < 2) return undefined;
  const want = outcomeOf(baseline);
  const identity = Array.from({ length: n }, (_, i) => i);
  for (const order of otherOrders(n)) {
    const got = outcomeOf(runPreparedStage(subject, c, { ...options, memberOrder: order }));
    const diffs = diffValues('result', want, got);
    if (diffs.length > 0) {
      return `order-check: the members run in order ${shown(order)} give another result than in order ${shown(identity)}:\n  ${diffs.join('\n  ')}`;
    }
  }
  return undefined;
}
