// Which stages a sub-agent runs in, for the checker: from its contract file (`*.contract.toml`: `agent` and the
// cases' `stage`) and from the `sub_agents` entries of prompt files. Broken files are skipped here: the `test`
// command and the pack report them; the checker only loses type information.

import { exists, readText, statPath } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { promptMeta } from '../aip/md.ts';
import { STAGES, configStages, entryForm, normalizeList, relaxEntries, type SubAgentStage } from '../contract/index.ts';
import { kindOf, type InputKind } from './contract-types.ts';
import { findWorkspace } from '../runtime/workspace.ts';

export type StageMap = Map<string, Set<InputKind>>;

const add = (map: StageMap, file: string, stages: Iterable<InputKind>) => {
  const set = map.get(file) ?? new Set<InputKind>();
  for (const s of stages) set.add(s);
  map.set(file, set);
};

const isStage = (s: unknown): s is SubAgentStage => typeof s === 'string' && (STAGES as readonly string[]).includes(s);

/** `agent` of a contract file, resolved (a pack agent `ns@pack/x` is not a file here: skipped). */
export function stagesFromContract(file: string, map: StageMap): void {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(readText(file)) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof doc.agent !== 'string' || doc.agent.includes('@')) return;
  const cases = Array.isArray(doc.case) ? (doc.case as Record<string, unknown>[]) : [];
  // an event-form case (its config or the case gives `on`) gets upstream's input
  const stages = cases.flatMap((c): InputKind[] => caseKinds(c));
  if (stages.length === 0) return;
  const agent = resolveAgentFile(nodePath.resolve(nodePath.dirname(file), doc.agent));
  if (agent) add(map, agent, stages);
}

/** The input kinds of one case of a contract file: its stage, in the event form when it gives `on`. */
function caseKinds(c: Record<string, unknown> | undefined): InputKind[] {
  if (typeof c !== 'object' || c === null) return [];
  const config = c.config as Record<string, unknown> | undefined;
  const on = c.on ?? config?.on;
  if (on === undefined) return isStage(c.stage) ? [c.stage] : [];
  if (isStage(c.stage)) return [kindOf(c.stage, 'event')];
  const events = (Array.isArray(on) ? on : [on]).filter((e): e is string => typeof e === 'string');
  // an emitted event is dispatched in the chain the case names (during = "end": post), else at pre
  return events.map((e) => kindOf(e === 'end' || (e !== 'start' && c.during === 'end') ? 'post' : 'pre', 'event'));
}


/** The raw `sub_agents` of a prompt file's first meta block; undefined when it has none or cannot be read. */
function subAgentsOfPrompt(file: string): unknown {
  try {
    return (promptMeta(readText(file)) as Record<string, unknown> | undefined)?.sub_agents;
  } catch {
    return undefined;
  }
}

/**
 * The named entries of a prompt file's `sub_agents` (a parallel group's members in its place: they run in the
 * group's stages) with the workspace root their names resolve from, as the pack runs them; undefined when the
 * file has none or they do not normalise.
 */
function namedEntriesOfPrompt(file: string, enabledOnly: boolean) {
  const entries = subAgentsOfPrompt(file);
  if (entries === undefined) return undefined;
  const r = normalizeList(relaxEntries(entries).value);
  if (!r.ok) return undefined;
  const configs = enabledOnly ? r.configs.filter((c) => c.enabled !== false) : r.configs;
  const named = configs.flatMap((c) => (Array.isArray(c.parallel) ? (c.parallel as typeof r.configs) : [c]));
  return { ws: findWorkspace(nodePath.dirname(file)), named };
}

/** The `sub_agents` entries of a prompt file; names resolve from the workspace root, as the pack runs them. */
export function stagesFromPrompt(file: string, map: StageMap): void {
  const found = namedEntriesOfPrompt(file, false);
  if (!found) return;
  for (const c of found.named) {
    if (c.name.includes('@')) continue;
    const agent = resolveAgentFile(nodePath.resolve(found.ws, c.name));
    if (agent) add(map, agent, configStages(c).map((s) => kindOf(s, entryForm(c))));
  }
}

/** The local `sub_agents` names of a prompt file whose agent file does not exist: the name and the path looked at. */
export function missingAgentsOfPrompt(file: string): { name: string; path: string }[] {
  const found = namedEntriesOfPrompt(file, true);
  if (!found) return [];
  const { ws, named } = found;
  return named
    .filter((c) => !c.name.includes('@') && resolveAgentFile(nodePath.resolve(ws, c.name)) === undefined)
    .map((c) => {
      const p = nodePath.resolve(ws, c.name);
      return { name: c.name, path: p.endsWith('.aip') ? p : p.endsWith('/') ? nodePath.join(p, 'main.aip') : `${p}.aip` };
    });
}

/** The warnings of a prompt file's lax `sub_agents` entries (upstream's readings of `on`, section 7). */
export function laxWarningsOfPrompt(file: string): string[] {
  const entries = subAgentsOfPrompt(file);
  return entries === undefined ? [] : relaxEntries(entries).warnings;
}

/** AIPack's candidates for a local agent name: the file, `<name>.aip`, `<name>/main.aip`. */
export function resolveAgentFile(p: string): string | undefined {
  const candidates = p.endsWith('.aip') ? [p] : p.endsWith('/') ? [nodePath.join(p, 'main.aip')] : [`${p}.aip`, nodePath.join(p, 'main.aip')];
  return candidates.find((c) => exists(c) && statPath(c).isFile());
}

/** A prompt file: a Markdown file whose meta may list sub_agents. */
export const isPromptFile = (f: string, explicit: boolean) => (explicit ? f.endsWith('.md') : nodePath.basename(f) === 'coder-prompt.md');
