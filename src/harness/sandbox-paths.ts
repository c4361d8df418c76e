/**
 * Where a stage run's sandbox lives, and its paths written back as the user knows them: relative to the case
 * file's directory, or, for an agent the sandbox does not hold, as the path on disk it stands for.
 */
import { exists as existsSync } from '../support/host-fs.ts';
import nodePath from 'node:path';
import type { AgentUnderTest } from './agent-discovery.ts';

/**
 * Where sandboxes live: an ordinary-looking path (an agent must not be able to tell it runs under test from
 * CTX.WORKSPACE_DIR), which the sandbox never looks up on disk, so the workspace holds only virtual files.
 */
export const SANDBOX_ROOT = '/home/user';
/** The sandbox workspace (nested one `w` dir deeper per `..` the agent's files climb). */
export const SANDBOX_WS = `${SANDBOX_ROOT}/project`;

/** The sandbox workspace for an agent: nested as deep as its files climb with `..`. */
export function sandboxDir(agent: Pick<AgentUnderTest, 'depth'>): string {
  return [SANDBOX_WS, ...Array<string>(agent.depth).fill('w')].join('/');
}

const SANDBOX_PATH = new RegExp(`${SANDBOX_WS.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/[^\\s:'"()\\]]*)?(?![\\w.-])`, 'g');

/**
 * A message with the sandbox's paths written as the case file names them (relative to its directory), so that a
 * Lua error reads `refiner.aip:19: ...` and not `/home/user/project/refiner.aip:19: ...`.
 */
export function unsandbox(text: string, ws: string): string {
  return text.replace(SANDBOX_PATH, (p) => nodePath.posix.relative(ws, p) || '.');
}

/**
 * An agent the sub-agent runs (`aip.agent.run`) that is not in the sandbox: its `full path` is said as the path on
 * disk it stands for, with how to bring it in (only the agent and its `support` files are copied into a case).
 */
export function explainMissingAgent(text: string, ws: string, agent: AgentUnderTest): string {
  const hostBase = agent.file.endsWith(agent.name) ? agent.file.slice(0, -agent.name.length) : undefined;
  return text.replace(/\(full path: (\S+)\)/g, (all, p: string) => {
    if (hostBase === undefined || !p.startsWith(ws + '/')) return all;
    const onDisk = nodePath.join(hostBase, nodePath.posix.relative(ws, p));
    const fix = existsSync(onDisk)
      ? 'it exists there, but a case only holds the agent and its support files: list it in the contract file\'s `support` (runStage: `support`)'
      : 'no such file; a helper agent must exist and be listed in the contract file\'s `support` (runStage: `support`)';
    return `(full path: ${onDisk}: ${fix})`;
  });
}
