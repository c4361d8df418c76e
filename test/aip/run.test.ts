import { describe, expect, it } from 'vitest';
import { run, task } from '../../src/aip/run.ts';
import type { HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

describe('aip.run / aip.task', () => {
  it('pin records iden, optional priority and content in the trace', () => {
    const env = makeStageEnv('/tmp/run-ws', { stage: 'Data', taskNum: 1 });
    (run(env) as HostFns).pin('a', 'x');
    (task(env) as HostFns).pin('b', 2, { y: 1 });
    expect(env.trace.of('pin').map(({ scope, iden, priority, content }) => ({ scope, iden, priority, content }))).toEqual([
      { scope: 'run', iden: 'a', priority: undefined, content: 'x' },
      { scope: 'task', iden: 'b', priority: 2, content: { y: 1 } },
    ]);
  });

  it('refuses bad arguments, and task functions outside Data and Output', () => {
    const env = makeStageEnv('/tmp/run-ws', { stage: 'BeforeAll' });
    expect(() => (run(env) as HostFns).pin('a')).toThrow('aip.run.pin takes (iden, content) or (iden, priority, content), got 1 arguments');
    expect(() => (run(env) as HostFns).pin('a', 'p', 'c')).toThrow('aip.run.pin: priority must be a number, got string');
    expect(() => (task(env) as HostFns).set_label('l')).toThrow("Cannot call 'aip.task.set_label(...)' in a before all or after all code block. Only in Data or Output.");
    // the stage is refused first, whatever the arguments
    expect(() => (task(env) as HostFns).set_label(1)).toThrow("Cannot call 'aip.task.set_label(...)' in a before all or after all code block. Only in Data or Output.");
    expect(() => (task(env) as HostFns).pin('a')).toThrow("Cannot call 'aip.task.pin(...)' in a before all or after all code block. Only in Data or Output.");
    const data = makeStageEnv('/tmp/run-ws', { stage: 'Data', taskNum: 1 });
    expect(() => (task(data) as HostFns).set_label(1)).toThrow('aip.task.set_label: label must be a string, got number');
    expect(() => (task(data) as HostFns).pin(1, 'c')).toThrow('aip.task.pin: iden must be a string, got number');
    (run(env) as HostFns).set_label('phase 1');
    expect(env.trace.of('label')).toMatchObject([{ scope: 'run', label: 'phase 1' }]);
  });
});
