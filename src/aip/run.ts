import { LuaError, luaTypeName } from '../engine/values.ts';
import type { AipNamespaceFactory, StageEnv } from './types.ts';
import { withArgChecks } from './arg-checks.ts';

/** pin(iden, content) or pin(iden, priority, content): recorded in the trace (docs/aipack.md section 7.8). */
function pinFn(env: StageEnv, scope: 'run' | 'task') {
  const fnName = `aip.${scope}.pin`;
  return (...args: unknown[]) => {
    if (args.length !== 2 && args.length !== 3) throw new LuaError(`${fnName} takes (iden, content) or (iden, priority, content), got ${args.length} arguments`);
    const [iden, a, b] = args;
    if (typeof iden !== 'string') throw new LuaError(`${fnName}: iden must be a string, got ${luaTypeName(iden)}`);
    let priority: number | undefined;
    let content = a;
    if (args.length === 3) {
      if (typeof a !== 'number') throw new LuaError(`${fnName}: priority must be a number, got ${luaTypeName(a)}`);
      priority = a;
      content = b;
    }
    env.trace.record({ kind: 'pin', depth: env.depth, agent: env.agent.name, scope, iden, priority, content });
  };
}

/** The label is checked at the entry (after the stage, for aip.task.set_label). */
function labelFn(env: StageEnv, scope: 'run' | 'task') {
  return (label: string) => {
    env.trace.record({ kind: 'label', depth: env.depth, agent: env.agent.name, scope, label });
  };
}

export const run: AipNamespaceFactory = (env) => withArgChecks('run', { pin: pinFn(env, 'run'), set_label: labelFn(env, 'run') });
export const task: AipNamespaceFactory = (env) => withArgChecks('task', { pin: pinFn(env, 'task'), set_label: labelFn(env, 'task') }, env.stage);
