/**
 * The sandbox of one stage run: a simulated AIPack over a purely virtual workspace holding the agent's files, the
 * case's files, the contract driver (inside the coder pack's directory) and stand-ins for the case's `prev`
 * sub-agents, with the case's scripted AI, commands, web answers and mocks.
 */
import nodePath from 'node:path';
import { PARALLEL_AGENT } from '../contract/index.ts';
import { DEFAULT_AIPACK_VERSION, compareVersions } from '../aip/catalog.ts';
import { ScriptedAi, ScriptedAiError, type ScriptedResponse } from '../runtime/ai.ts';
import { checkMocksAt, MockError, parseMocks, type Mocks } from '../runtime/mocks.ts';
import { Simulator } from '../runtime/simulator.ts';
import { createOverlayVfs } from '../runtime/vfs.ts';
import { packReadsOf } from './pack-reads.ts';
import type { AgentUnderTest } from './agent-discovery.ts';
import { CaseFileError, type AiAnswer, type PrevItem } from './case-file.ts';
import { DRIVER_AIP, DRIVER_FILE, driverName, prevChain } from './driver.ts';
import { SANDBOX_ROOT, sandboxDir, unsandbox } from './sandbox-paths.ts';
import type { HarnessOptions, StageInput, StageTarget } from './stage-request.ts';

/** The AIPack version that brought CTX.RUN_FLOW_REDO_COUNT. */
const REDO_COUNT_SINCE = '0.8.22';

function scripted(ai: AiAnswer[], view: (text: string) => string, io: { commands?: unknown[]; web?: unknown[] } = {}): ScriptedAi {
  const list: ScriptedResponse[] = ai.map((a) => (typeof a === 'string' ? { content: a } : { ...a }));
  return ScriptedAi.fromList(list, 'ai', io, view);
}

/** The case's mocks, checked; a bad name is a case-file error. */
function mocksOf(raw: Record<string, unknown> | undefined, agent: string, version: string): Mocks | undefined {
  if (raw === undefined) return undefined;
  try {
    const mocks = parseMocks(raw, 'mocks');
    checkMocksAt(mocks, version);
    return mocks;
  } catch (err) {
    if (err instanceof MockError) throw new CaseFileError(err.message, agent, undefined, 'mocks');
    throw err;
  }
}

/** A Lua long string holding `text` (a level no `]=...=]` in it closes). */
function longString(text: string): string {
  let eq = '';
  while (text.includes(`]${eq}]`)) eq += '=';
  return `[${eq}[\n${text}]${eq}]`;
}

/** A stand-in for a sub-agent that ran earlier in the stage run: it only returns its agent_result. */
function prevStub(item: PrevItem, emits?: string): string {
  const fields = [
    ...(item.agent_result === undefined ? [] : [`agent_result = aip.json.parse(${longString(JSON.stringify(item.agent_result))})`]),
    ...(emits === undefined ? [] : [`emit_events = { ${JSON.stringify(emits)} }`]),
  ];
  const body = fields.length === 0 ? 'return nil' : `return { ${fields.join(', ')} }`;
  return `# Description\n\nStand-in for an earlier sub-agent of the stage run (contract case \`prev\`).\n\n# Output\n\n\`\`\`lua\n${body}\n\`\`\`\n`;
}

/** One stage run in the making: the sandbox, its simulator and the names the driver runs under. */
export interface Sandbox {
  ws: string;
  vfs: ReturnType<typeof createOverlayVfs>;
  sim: Simulator;
  ai: ScriptedAi;
  driverName: string;
  runnerName: string;
  view: (text: string) => string;
}

/** The sandbox of one stage run: the agent's and the case's files, the driver, `prev` stand-ins, the scripted AI. */
export function buildSandbox(agent: AgentUnderTest, input: StageInput, target: StageTarget, options: HarnessOptions): Sandbox {
  const version = options.aipackVersion ?? DEFAULT_AIPACK_VERSION;
  if (input.redo_count !== undefined && compareVersions(version, REDO_COUNT_SINCE) < 0) {
    throw new CaseFileError(
      `redo_count: CTX.RUN_FLOW_REDO_COUNT exists from AIPack ${REDO_COUNT_SINCE} on; this run simulates ${version} (set aipack_version, or --aipack-version)`,
      agent.name,
      undefined,
      'redo_count',
    );
  }
  const ws = sandboxDir(agent);
  const pack = agent.pack;
  const driver = driverName(pack);
  const runnerName = `${pack.namespace}@${pack.name}/${PARALLEL_AGENT}`;
  const files: Record<string, string | Uint8Array> = { [nodePath.join(pack.dir, DRIVER_FILE)]: DRIVER_AIP };
  for (const [rel, content] of agent.files) files[nodePath.join(ws, rel)] = content;
  for (const [rel, content] of Object.entries(input.files ?? {})) files[nodePath.join(ws, rel)] = content;
  const chain = prevChain(input, target);
  for (const [i, item] of (input.prev ?? []).entries()) {
    if (item.name === agent.name) throw new CaseFileError(`prev[${i + 1}].name: '${item.name}' is the agent under test; prev lists the sub-agents that ran before it`, agent.name);
    files[nodePath.join(ws, item.name)] = prevStub(item, i === chain.emitter ? chain.event : undefined);
  }
  const vfs = createOverlayVfs(ws, { files, readOnlyRoots: [pack.dir], diskless: [SANDBOX_ROOT], sealed: packReadsOf(pack.dir) });
  const view = (text: string) => unsandbox(text, ws);
  let ai: ScriptedAi;
  try {
    ai = scripted(input.ai ?? [], view, { commands: input.commands, web: input.web });
  } catch (err) {
    if (err instanceof ScriptedAiError) throw new CaseFileError(err.message, agent.name, undefined, 'commands');
    throw err;
  }
  const mocks = mocksOf(input.mocks, agent.name, options.aipackVersion ?? DEFAULT_AIPACK_VERSION);
  const sim = new Simulator({
    mocks,
    workspaceDir: ws,
    vfs,
    packs: agent.packs,
    ai,
    aipackVersion: options.aipackVersion,
    budget: options.budget,
    timeoutMs: options.timeoutMs,
    engine: options.engine,
    flowRedoBase: input.redo_count ?? 0,
    ...(options.memberOrder ? { taskOrder: (name: string, count: number) => (name === runnerName && count === options.memberOrder!.length ? options.memberOrder : undefined) } : {}),
    // the agent may sit above the workspace (named '../agents/x.aip'): the whole virtual sandbox is readable
    readRoots: [nodePath.dirname(sandboxDir({ ...agent, depth: 0 }))],
  });
  return { ws, vfs, sim, ai, driverName: driver, runnerName, view };
}
