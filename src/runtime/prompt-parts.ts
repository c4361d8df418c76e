/**
 * An agent's prompt parts rendered into chat messages: each part through Handlebars (see the aip/support renderer),
 * its heading options parsed as inline TOML.
 */
import { parse as parseToml } from 'smol-toml';
import { renderTemplate, TemplateError } from '../aip/support/handlebars.ts';
import type { PromptPart } from './agent-doc.ts';

export interface PromptMessage {
  role: 'user' | 'system' | 'assistant';
  content: string;
  /** header option `cache = true` (AIPack: ephemeral cache control) */
  cache: boolean;
}

const ROLES: Record<PromptPart['kind'], PromptMessage['role']> = {
  instruction: 'user',
  system: 'system',
  assistant: 'assistant',
};

/**
 * Renders the prompt parts into chat messages (docs/aipack.md section 2 "Prompt/AI" and 11): each part separately, its
 * header options prepended as a first line, rendered, split off again and parsed as inline TOML; parts whose
 * text trims to empty are dropped (their options are then not parsed, as in AIPack). `file` names the .aip
 * in error messages.
 */
export function renderPromptParts(
  parts: PromptPart[],
  root: { data: unknown; input: unknown; before_all: unknown },
  file = '<agent>',
): PromptMessage[] {
  const scope = { data: root.data ?? null, input: root.input ?? null, before_all: root.before_all ?? null };
  const messages: PromptMessage[] = [];
  for (const part of parts) {
    const hasOptions = part.headerOptions !== undefined;
    const template = hasOptions ? `${part.headerOptions}\n${part.content}` : part.content;
    let rendered: string;
    try {
      rendered = renderTemplate(template, scope);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      // Template line 1 is the heading's options when present, else the line after the heading.
      const line = e.templateLine !== undefined ? part.line + e.templateLine - (hasOptions ? 1 : 0) : part.line;
      throw new TemplateError(`${file}:${line}: cannot render the ${part.kind} part (heading at line ${part.line}): ${e.message}`, line);
    }
    let optionsText = '';
    let body = rendered;
    if (hasOptions) {
      const nl = rendered.indexOf('\n');
      optionsText = nl < 0 ? rendered : rendered.slice(0, nl);
      body = nl < 0 ? '' : rendered.slice(nl + 1);
    }
    optionsText = optionsText.trim();
    if (body.trim() === '') continue;
    const cache = optionsText === '' ? false : parsePartOptions(optionsText, `${file}:${part.line}`);
    messages.push({ role: ROLES[part.kind], content: body, cache });
  }
  return messages;
}

/** `cache = true` -> parsed as the inline table `{cache = true}` (AIPack `parse_prompt_part_options`). */
function parsePartOptions(text: string, where: string): boolean {
  let table: Record<string, unknown>;
  try {
    table = parseToml(`options = {${text}}`).options as Record<string, unknown>;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new TemplateError(`${where}: invalid prompt part options \`${text}\` (expected inline TOML like \`cache = true\`): ${msg}`);
  }
  const cache = table.cache;
  if (cache === undefined) return false;
  if (typeof cache !== 'boolean') {
    throw new TemplateError(`${where}: prompt part option 'cache' must be a boolean, got ${JSON.stringify(cache)}`);
  }
  return cache;
}
