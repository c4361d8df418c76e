import { describe, expect, it } from 'vitest';
import { buildCtx, type CtxSession } from '../../src/runtime/ctx.ts';
import type { Frame } from '../../src/runtime/lifecycle/agent-run.ts';

const session = (version: string): CtxSession => ({
  workspaceDir: '/ws',
  sessionUid: 'S',
  dirs: { workspace: '/ws', workspaceAipack: '/ws/.aipack', baseAipack: '/h/.aipack-base', home: '/h', tmp: '/ws/.aipack/.session/S/tmp' },
  aipackVersion: version,
  since: (v) => v.split('.').map(Number).reduce((d, n, i) => d || Math.sign(Number(version.split('.')[i]) - n), 0) >= 0,
});

const frame = {
  name: 'pro@coder/x',
  resolved: { file: '/p/coder/x.aip', pack: { namespace: 'pro', name: 'coder', dir: '/p/coder', subPath: 'x', ref: 'pro@coder/x' } },
  runUid: 'R',
  runNum: 3,
} as unknown as Frame;

describe('buildCtx', () => {
  it('gives the pack keys and the task keys of a Data stage', () => {
    const ctx = buildCtx(session('0.8.22'), frame, 'Data', 2);
    expect(ctx).toMatchObject({
      AGENT_FILE_STEM: 'x',
      PACK_IDENTITY: 'pro@coder',
      PACK_WORKSPACE_SUPPORT_DIR: '/ws/.aipack/support/pack/pro/coder',
      TASK_UID: 'R-task-2',
      TASK_NUM: 2,
      RUN_NUM: 3,
      STAGE: 'Data',
      RUN_FLOW_REDO_COUNT: '0',
    });
  });

  it('follows the version: no RUN_NUM/TASK_NUM before 0.8.12, no redo count before 0.8.22, an integer count outside tasks', () => {
    expect(buildCtx(session('0.8.11'), frame, 'Data', 1)).toMatchObject({ RUN_NUM: undefined, TASK_NUM: undefined, RUN_FLOW_REDO_COUNT: undefined });
    expect(buildCtx(session('0.8.22'), frame, 'AfterAll', undefined)).toMatchObject({ TASK_UID: undefined, RUN_FLOW_REDO_COUNT: 0 });
  });
});
