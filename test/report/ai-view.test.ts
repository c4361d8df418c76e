import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/aip/support/trace.ts';
import { aiView } from '../../src/report/ai-view.ts';

type Ai = Extract<TraceEvent, { kind: 'ai' }>;
const event = (over: Partial<Ai> = {}): Ai => ({
  kind: 'ai',
  depth: 0,
  agent: 'pro@coder',
  task: 1,
  model: 'demo-model',
  prompt: '',
  parts: [
    { role: 'system', cache: true, content: 'Be brief.' },
    { role: 'user', cache: false, content: 'Files:\n<WORKING_FILE file_path="src/a.ts">\nconst a = 1;\n</WORKING_FILE>\n<CONTEXT_FILE file_path="docs/é.md">\n# é\n</CONTEXT_FILE>' },
  ],
  response: 'Done: é',
  ms: 3,
  ...over,
});

describe('aiView', () => {
  it('gives each part with its role, cache mark and byte size, and the sizes of prompt and answer', () => {
    const v = aiView(event());
    expect(v.parts.map((p) => [p.role, p.cache, p.bytes])).toEqual([
      ['system', true, 9],
      ['user', false, Buffer.byteLength(event().parts[1]!.content)],
    ]);
    expect(v.promptBytes).toBe(v.parts[0]!.bytes + v.parts[1]!.bytes);
    expect(v.answerBytes).toBe(8); // 'é' is two bytes
    expect(v.model).toBe('demo-model');
  });

  it('names the files the parts carry, with the size of each block', () => {
    expect(aiView(event()).files).toEqual([
      { path: 'src/a.ts', kind: 'WORKING_FILE', bytes: Buffer.byteLength('\nconst a = 1;\n') },
      { path: 'docs/é.md', kind: 'CONTEXT_FILE', bytes: Buffer.byteLength('\n# é\n') },
    ]);
  });

  it('lists attachments the event records beside the parts', () => {
    const e = { ...event({ parts: [] }), attachments: [{ path: 'shot.png', bytes: 2048 }] } as Ai;
    expect(aiView(e).files).toEqual([{ path: 'shot.png', kind: 'attachment', bytes: 2048 }]);
  });

  it('caps a huge answer but counts its full size', () => {
    const v = aiView(event({ response: 'x'.repeat(200_000) }));
    expect(v.answerBytes).toBe(200_000);
    expect(v.answer.length).toBeLessThan(100_000);
  });
});
