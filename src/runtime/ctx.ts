/** The `CTX` table of one Lua stage (docs/aipack.md section 5). */
import nodePath from 'node:path';
import type { StageEnv } from '../aip/types.ts';
import type { LifecycleStage } from '../aip/support/lifecycle-stage.ts';
import type { Frame } from './lifecycle/agent-run.ts';

/** What CTX takes from the simulated session. */
export interface CtxSession {
  workspaceDir: string;
  sessionUid: string;
  dirs: StageEnv['dirs'];
  aipackVersion: string;
  /** true when the simulated AIPack version is `version` or later */
  since(version: string): boolean;
}

export function buildCtx(run: CtxSession, frame: Frame, stage: LifecycleStage, taskNum: number | undefined): Record<string, unknown> {
  const file = frame.resolved.file;
  const pack = frame.resolved.pack;
  const inTask = stage === 'Data' || stage === 'Output';
  return {
    PWD: run.workspaceDir,
    SESSION_UID: run.sessionUid,
    TMP_DIR: run.dirs.tmp,
    AIPACK_VERSION: run.aipackVersion,
    WORKSPACE_DIR: run.workspaceDir,
    WORKSPACE_AIPACK_DIR: run.dirs.workspaceAipack,
    BASE_AIPACK_DIR: run.dirs.baseAipack,
    AGENT_NAME: frame.name,
    AGENT_FILE_NAME: nodePath.basename(file),
    AGENT_FILE_STEM: nodePath.basename(file, '.aip'),
    AGENT_FILE_PATH: file,
    AGENT_FILE_DIR: nodePath.dirname(file),
    PACK_NAMESPACE: pack?.namespace,
    PACK_NAME: pack?.name,
    PACK_SUB_PATH: pack?.subPath,
    PACK_REF: pack?.ref,
    PACK_IDENTITY: pack ? `${pack.namespace}@${pack.name}` : undefined,
    PACK_DIR: pack?.dir,
    PACK_WORKSPACE_SUPPORT_DIR: pack ? nodePath.join(run.dirs.workspaceAipack, 'support', 'pack', pack.namespace, pack.name) : undefined,
    PACK_BASE_SUPPORT_DIR: pack ? nodePath.join(run.dirs.baseAipack, 'support', 'pack', pack.namespace, pack.name) : undefined,
    RUN_UID: frame.runUid,
    RUN_NUM: run.since('0.8.12') ? frame.runNum : undefined,
    PARENT_RUN_UID: frame.parentRunUid,
    TASK_UID: inTask ? `${frame.runUid}-task-${taskNum}` : undefined,
    TASK_NUM: inTask && run.since('0.8.12') ? taskNum : undefined,
    STAGE: stage,
    // string-typed in Data/Output, as AIPack's code has it (docs/aipack.md section 5)
    RUN_FLOW_REDO_COUNT: run.since('0.8.22') ? (inTask ? String(frame.flowRedoCount ?? 0) : frame.flowRedoCount ?? 0) : undefined,
  };
}
