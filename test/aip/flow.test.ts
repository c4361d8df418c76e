import { describe, expect, it } from 'vitest';
import { flow } from '../../src/aip/flow.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import type { HostFns } from '../helpers/file-workspace.ts';

const f = flow({} as StageEnv) as HostFns;

describe('aip.flow', () => {
  it('builds the directive tables the runtime acts on', () => {
    expect(f.skip('no work')).toEqual({ _aipack_: { kind: 'Skip', data: { reason: 'no work' } } });
    expect(f.skip()).toEqual({ _aipack_: { kind: 'Skip', data: {} } });
    expect(f.redo_run()).toEqual({ _aipack_: { kind: 'Redo' } });
    expect(f.before_all_response({ inputs: [1] })).toEqual({ _aipack_: { kind: 'BeforeAllResponse', data: { inputs: [1] } } });
    expect(f.data_response()).toEqual({ _aipack_: { kind: 'DataResponse', data: {} } });
  });
});
