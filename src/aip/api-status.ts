/** What the simulator does with each aip.* function of a version, for `coder-subagents api`. */
import { aipFunctionsAt } from './catalog.ts';
import { aipEntry } from './functions.ts';
import { FACTORIES } from './registry.ts';
import type { StageEnv } from './types.ts';

export type ApiStatus = 'simulated' | 'scripted' | 'stricter' | 'not simulated';

/**
 * Every aip.* function of an AIPack version with what the simulator does with it (`coder-subagents api`), from
 * its entry (functions.ts): simulated as AIPack does it, scripted or stricter as the entry says, or not simulated
 * (no module implements it: it raises; stub it with mocks). aip.udiffx.file_changes_instruction is simulated with
 * wording of its own (same format, different prose from AIPack's).
 */
export function apiStatusAt(version: string): { path: string; since: string; kind: string; status: ApiStatus }[] {
  // only the names a namespace hands out matter; a task's stage, where task-only functions are made too
  const probe = { stage: 'Data' } as StageEnv;
  const impl = new Map<string, Record<string, unknown>>();
  return aipFunctionsAt(version).map((f) => {
    const [, ns, name] = f.path.split('.');
    if (!impl.has(ns)) impl.set(ns, FACTORIES[ns]?.(probe) ?? {});
    const entry = aipEntry(f.path);
    const has = entry?.inLua === true || impl.get(ns)?.[name] !== undefined;
    const status: ApiStatus = !has ? 'not simulated' : (entry?.simulation ?? 'simulated');
    return { path: f.path, since: f.since, kind: f.kind, status };
  });
}
