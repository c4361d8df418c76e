/**
 * A hand-built StageEnv for unit tests of `aip.*` namespaces: an overlay Vfs over `workspaceDir`, a simulated
 * home (with `.aipack-base`) next to the workspace that never exists on disk, a Trace, and a print collector.
 */
import nodePath from 'node:path';
import { LuaError } from '../../src/engine/values.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { Trace } from '../../src/aip/support/trace.ts';
import type { LifecycleStage } from '../../src/aip/support/lifecycle-stage.ts';
import { createOverlayVfs, type OverlayVfsOptions } from '../../src/runtime/vfs.ts';
import type { Vfs } from '../../src/support/vfs.ts';

export interface StageEnvOverrides {
  vfs?: Vfs;
  /** virtual files for the default Vfs (ignored when `vfs` is given) */
  files?: OverlayVfsOptions['files'];
  dirs?: Partial<StageEnv['dirs']>;
  findPackDir?: StageEnv['findPackDir'];
  stage?: LifecycleStage;
  taskNum?: number;
  agent?: Partial<StageEnv['agent']>;
  aipackVersion?: string;
  depth?: number;
  trace?: Trace;
  runAgent?: StageEnv['runAgent'];
  print?: StageEnv['print'];
}

export type TestStageEnv = StageEnv & { printed: string[] };

export function makeStageEnv(workspaceDir: string, overrides: StageEnvOverrides = {}): TestStageEnv {
  const workspace = nodePath.resolve(workspaceDir);
  const vfs = overrides.vfs ?? createOverlayVfs(workspace, { files: overrides.files });
  // a sibling of the workspace: outside it, so nothing written there can ever be committed
  const home = overrides.dirs?.home ?? `${workspace}.sim-home`;
  const dirs: StageEnv['dirs'] = {
    workspace,
    workspaceAipack: nodePath.join(workspace, '.aipack'),
    baseAipack: nodePath.join(home, '.aipack-base'),
    home,
    tmp: nodePath.join(workspace, '.aipack', '.session', '00000000-0000-7000-8000-000000000001', 'tmp'),
    ...overrides.dirs,
  };
  const agentDir = overrides.agent?.dir ?? workspace;
  const printed: string[] = [];

  // docs/aipack.md section 9 search order
  const findPackDir =
    overrides.findPackDir ??
    ((ns: string, name: string) =>
      [
        nodePath.join(dirs.workspaceAipack, 'pack', 'custom', ns, name),
        nodePath.join(dirs.baseAipack, 'pack', 'custom', ns, name),
        nodePath.join(dirs.baseAipack, 'pack', 'installed', ns, name),
      ].find((d) => vfs.isDir(d)));

  return {
    vfs,
    dirs,
    findPackDir,
    stage: overrides.stage ?? 'BeforeAll',
    taskNum: overrides.taskNum,
    agent: {
      name: 'test-agent',
      filePath: nodePath.join(agentDir, 'test-agent.aip'),
      dir: agentDir,
      ...overrides.agent,
    },
    aipackVersion: overrides.aipackVersion ?? '0.8.15',
    depth: overrides.depth ?? 0,
    trace: overrides.trace ?? new Trace(),
    runAgent:
      overrides.runAgent ??
      (() => {
        throw new LuaError('aip.agent.run: not available in this test environment');
      }),
    print: overrides.print ?? ((text: string) => printed.push(text)),
    printed,
  };
}
