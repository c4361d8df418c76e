import type { AgentOptions } from '../agent-doc.ts';
import { resolveModel } from '../option-layers.ts';
import type { AiAnswer, ScriptedAi } from '../ai.ts';
import { renderPromptParts } from '../prompt-parts.ts';
import type { AttachmentSent, PromptPartSent, Trace } from '../../aip/support/trace.ts';
import type { Vfs } from '../../support/vfs.ts';
import { attachmentMessage } from '../attachments.ts';
import { fail, type Frame } from './agent-run.ts';

/** The prompt of one task: the `.aip` parts rendered with `data`/`input`/`before_all`, attachments first, to the model. */
export function callAi(
  deps: { ai: ScriptedAi; trace: Trace; vfs: Vfs; resolve: (path: string) => string },
  frame: Frame,
  taskNum: number,
  root: { data: unknown; input: unknown; before_all: unknown },
  attachments: unknown[],
  options: AgentOptions,
): AiAnswer | undefined {
  let messages: ReturnType<typeof renderPromptParts>;
  try {
    messages = renderPromptParts(frame.doc.parts, root);
  } catch (err) {
    throw fail(frame, `prompt rendering failed: ${(err as Error).message}`);
  }
  const attached = attachments.map((a) => attachmentMessage(deps, a));
  const all = [...attached, ...messages];
  if (all.length === 0) return undefined;
  const model = resolveModel(options.model ?? '', options.model_aliases ?? {});
  const t0 = deps.trace.now();
  let answer: AiAnswer;
  try {
    answer = deps.ai.answer({ agentName: frame.name, agentFile: frame.resolved.file, messages: all, model, temperature: options.temperature, top_p: options.top_p });
  } catch (err) {
    throw fail(frame, (err as Error).message);
  }
  deps.trace.record({
    kind: 'ai',
    depth: frame.depth,
    agent: frame.name,
    task: taskNum,
    model: answer.model_name,
    prompt: all.map((m) => m.content).join('\n\n'),
    parts: all.map((m): PromptPartSent => {
      const attachment = (m as { attachment?: AttachmentSent }).attachment;
      return { role: m.role, cache: m.cache, content: m.content, ...(attachment ? { attachment } : {}) };
    }),
    response: answer.content ?? '',
    ms: deps.trace.now() - t0,
  });
  return answer;
}
