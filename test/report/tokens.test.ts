import { describe, expect, it } from 'vitest';
import { addTokens, estimateTokens } from '../../src/report/tokens.ts';
import type { RunView } from '../../src/report/run-view.ts';

describe('estimateTokens', () => {
  it('counts o200k_base tokens', () => {
    expect(estimateTokens('hello world')).toBe(2);
    expect(estimateTokens('')).toBe(0);
  });

  it('counts special-token text as plain text instead of refusing it', () => {
    expect(estimateTokens('a <|endoftext|> b')).toBeGreaterThan(3);
  });

  it('scales a capped text up to its full size', () => {
    const n = estimateTokens('hello world');
    expect(estimateTokens('hello world', 22)).toBe(n * 2);
  });
});

describe('addTokens', () => {
  const part = (content: string) => ({ role: 'user', cache: false, bytes: Buffer.byteLength(content), content });
  const ai = (agent: string, prompt: string, answer: string) => ({
    agent, model: 'm', task: 1, ms: 1, parts: [part(prompt)], files: [], promptBytes: Buffer.byteLength(prompt), answer, answerBytes: Buffer.byteLength(answer),
  });
  const view = (): RunView => ({
    title: 't', status: 'completed', agent: 'pro@coder', ms: 1, parts: [], calls: [], files: [], notApplied: [], warnings: [],
    ai: [ai('b.aip', 'hello world', 'ok'), ai('a.aip', 'hello', 'yes'), ai('b.aip', 'hello world', 'ok')],
  });

  it('sets each call\'s tokens and the totals per agent, then the run\'s', () => {
    const v = addTokens(view());
    expect(v.ai.map((a) => [a.promptTokens, a.answerTokens])).toEqual([[2, 1], [1, 1], [2, 1]]);
    expect(v.totals).toEqual([
      { agent: 'a.aip', aiCalls: 1, promptBytes: 5, answerBytes: 3, promptTokens: 1, answerTokens: 1 },
      { agent: 'b.aip', aiCalls: 2, promptBytes: 22, answerBytes: 4, promptTokens: 4, answerTokens: 2 },
      { agent: '*', aiCalls: 3, promptBytes: 27, answerBytes: 7, promptTokens: 5, answerTokens: 3 },
    ]);
  });
});
