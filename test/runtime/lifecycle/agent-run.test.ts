import { describe, expect, it } from 'vitest';
import { AgentRunError, RunLimitError, directiveOf, fail, redoMisplaced, type Frame } from '../../../src/runtime/lifecycle/agent-run.ts';

const frame = { name: 'my-agent' } as Frame;

describe('agent run helpers', () => {
  it('directiveOf reads the aip.flow directive a stage returned; unknown kinds fail except in After All', () => {
    expect(directiveOf({ _aipack_: { kind: 'Skip', data: { reason: 'r' } } }, 'Data', frame)).toEqual({ kind: 'Skip', data: { reason: 'r' } });
    expect(directiveOf({ x: 1 }, 'Data', frame)).toBeUndefined();
    expect(directiveOf('text', 'Data', frame)).toBeUndefined();
    expect(() => directiveOf({ _aipack_: { kind: 'Jump' } }, 'Output', frame)).toThrow("_aipack_ kind 'Jump' is not known.");
    expect(directiveOf({ _aipack_: { kind: 'Jump' } }, 'AfterAll', frame)).toBeUndefined();
  });

  it('errors carry the agent and the stage; a limit error keeps its cause', () => {
    const e = fail(frame, 'boom', 'Data');
    expect([e.message, e.agent, e.stage]).toEqual(['boom', 'my-agent', 'Data']);
    const limit = new RunLimitError(e);
    expect(limit).toBeInstanceOf(AgentRunError);
    expect([limit.name, limit.message, limit.stage]).toEqual(['RunLimitError', 'boom', 'Data']);
    expect(redoMisplaced(frame, 'Output').message).toBe(
      'aip.flow.redo_run() can be returned only from # Before All or # After All stages. Returned from # Output stage.',
    );
  });
});
