/** What the simulator does with each aip.* function of a version, for `coder-subagents api`. */
import { aipFunctionsAt } from './catalog.ts';
import { FACTORIES, LUA_IMPLEMENTED } from './registry.ts';
import type { StageEnv } from './types.ts';

export type ApiStatus = 'simulated' | 'scripted' | 'stricter' | 'not simulated';

/** Answered from scripted entries of the responses file, never from the host. */
const SCRIPTED = new Set(['aip.cmd.exec', 'aip.web.get', 'aip.web.post']);
/** Outside aip.file, writes under the same sandbox rules (udiffx: no delete outside the workspace, see udiffx.ts). */
const STRICTER = new Set(['aip.udiffx.apply_file_changes']);

/**
 * Every aip.* function of an AIPack version with what the simulator does with it (`coder-subagents api`):
 * simulated as AIPack does it, scripted (cmd/web answers from the responses file), stricter (aip.file reads
 * only inside the workspace, the packs and the agent's folder, loudly; aip.udiffx.apply_file_changes writes only in the
 * workspace), or not simulated (raises; stub it with mocks). aip.udiffx.file_changes_instruction is simulated with
 * wording of its own (same format, different prose from AIPack's).
 */
export function apiStatusAt(version: string): { path: string; since: string; kind: string; status: ApiStatus }[] {
  const probe = {} as StageEnv;
  const impl = new Map<string, Record<string, unknown>>();
  return aipFunctionsAt(version).map((f) => {
    const [, ns, name] = f.path.split('.');
    if (!impl.has(ns)) impl.set(ns, FACTORIES[ns]?.(probe) ?? {});
    const has = LUA_IMPLEMENTED.has(f.path) || impl.get(ns)?.[name] !== undefined;
    const status: ApiStatus = !has ? 'not simulated' : SCRIPTED.has(f.path) ? 'scripted' : ns === 'file' || STRICTER.has(f.path) ? 'stricter' : 'simulated';
    return { path: f.path, since: f.since, kind: f.kind, status };
  });
}
