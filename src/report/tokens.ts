/**
 * Estimated token counts of a report's model calls, with the o200k_base encoding (gpt-tokenizer: GPT-4o and later
 * OpenAI models). Other providers' tokenizers differ: the figure is an estimate of the size, not a bill.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { byteSize } from './json-text.ts';
import type { AgentTotal, RunView } from './run-view.ts';

// special-token text (`<|endoftext|>`) in a prompt is counted as the plain text it is, not refused
const PLAIN = { disallowedSpecial: new Set<string>() };

// suites repeat the same parts (system prompts, instructions) across cases: each text is counted once
const counted = new Map<string, number>();
const MEMO_LIMIT = 20_000;

/** The estimated tokens of `text`; a capped text (shorter than its `bytes`) is scaled up to its full size. */
export function estimateTokens(text: string, bytes = byteSize(text)): number {
  let n = counted.get(text);
  if (n === undefined) {
    n = countTokens(text, PLAIN);
    if (counted.size >= MEMO_LIMIT) counted.clear();
    counted.set(text, n);
  }
  const shown = byteSize(text);
  return shown > 0 && bytes > shown ? Math.round((n * bytes) / shown) : n;
}

/** Sets the token estimates of every model call of `view` and its totals per agent and for the run (`*`). */
export function addTokens(view: RunView): RunView {
  const totals = new Map<string, AgentTotal>();
  const add = (agent: string, a: RunView['ai'][number]) => {
    const t = totals.get(agent) ?? { agent, aiCalls: 0, promptBytes: 0, answerBytes: 0, promptTokens: 0, answerTokens: 0 };
    t.aiCalls++;
    t.promptBytes += a.promptBytes;
    t.answerBytes += a.answerBytes;
    t.promptTokens! += a.promptTokens!;
    t.answerTokens! += a.answerTokens!;
    totals.set(agent, t);
  };
  for (const a of view.ai) {
    for (const p of a.parts) p.tokens = estimateTokens(p.content, p.bytes);
    a.promptTokens = a.parts.reduce((n, p) => n + p.tokens!, 0);
    a.answerTokens = estimateTokens(a.answer, a.answerBytes);
    add(a.agent, a);
    add('*', a);
  }
  const run = totals.get('*');
  totals.delete('*');
  view.totals = [...[...totals.values()].sort((x, y) => (x.agent < y.agent ? -1 : x.agent > y.agent ? 1 : 0)), ...(run ? [run] : [])];
  return view;
}
