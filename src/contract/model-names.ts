/**
 * Model names as AIPack takes them (docs/models.md). AIPack resolves a name through the model aliases first
 * (config-default.toml's, the user's and the workspace's config, the agent's options; `flash-low` is the alias
 * `flash` with its reasoning suffix), then hands it to its model client (genai), which picks the provider from a
 * `namespace::` prefix or from how the name starts, and sends any other name to a local Ollama. AIPack itself never
 * refuses a name: a typo shows only when the call fails. So a name is questioned only when it is most probably a
 * typo: a namespace no provider has, or a name that goes to Ollama while it is close to an alias or a provider's
 * name (`sonet`, `gtp-5`). An Ollama model's own name (`llama3.2`, `qwen2.5-coder:7b`, `qwen3`: one that holds an
 * alias is of its family) is never questioned.
 *
 * The same rule runs in the pack (lua/utils_names.lua, from the data generated into the contract module).
 */
import { suggest } from '../support/suggest.ts';

/** Provider namespaces genai knows (`openai::gpt-4o`): its adapter kinds' lower-case names and two custom ones. */
export const MODEL_NAMESPACES = [
  'openai', 'openai_resp', 'gemini', 'anthropic', 'fireworks', 'together', 'groq', 'aihubmix', 'kimi', 'mimo',
  'moonshot', 'nebius', 'xai', 'deepseek', 'zai', 'zai_coding', 'bigmodel', 'aliyun', 'qwen_cloud', 'baidu',
  'baidu-coding-openai', 'baidu-coding-anthropic', 'cohere', 'ollama', 'ollama_cloud', 'omlx', 'vertex',
  'github_copilot', 'opencode_go', 'bedrock_api', 'bedrock_sigv4', 'open_router', 'atlascloud', 'minimax',
] as const;

/** How a name starts when genai sends it to a provider without a namespace (`gpt-oss` names go to Ollama). */
export const MODEL_PREFIXES = [
  'gpt', 'chatgpt', 'codex', 'o1', 'o3', 'o4', 'text-embedding', 'gemini', 'claude', 'kimi-', 'mimo-', 'command',
  'embed-', 'grok', 'glm', 'deepseek-', 'moonshot-', 'MiniMax-', 'minimax-', 'omlx-',
] as const;

/** genai also sends a name that contains this to Fireworks. */
export const MODEL_INFIX = 'fireworks';

/** The aliases of AIPack's stock config-default.toml (aipack-ai/aipack `_init/base/config-default.toml`). */
export const STOCK_MODEL_ALIASES = [
  'mythos', 'fable', 'opus', 'claude', 'sonnet', 'haiku', 'sol', 'terra', 'gpt', 'luna', 'mini', 'nano', 'codex',
  'gpro', 'flash', 'lite', 'lite31', 'flash3', 'dflash', 'dpro', 'glm', 'kimi', 'kimi-fast', 'qwen', 'minimax',
  'minimax-speed', 'mimo', 'mimo-pro', 'mflash', 'mpro', 'f-kimi', 'f-qwen', 'f-minimax', 'f-glm', 'f-glm-air',
  'f-gpt-oss', 'f-gpt-oss-120b', 'f-gpt-oss-20b', 'f-dflash', 'f-dpro', 'grok',
] as const;

/** The reasoning suffixes AIPack keeps when it resolves an alias (`flash-low`). */
export const REASONING_SUFFIXES = ['-none', '-zero', '-minimal', '-low', '-medium', '-high', '-xhigh', '-max'] as const;

/** A provider's name start as a word a typo is compared with (`gpt`, `claude`, `deepseek`). */
const PREFIX_WORDS = [...new Set(MODEL_PREFIXES.map((p) => p.replace(/-$/, '').toLowerCase()))];

const NAMESPACE_SEP = '::';

/** The warnings' wording (the pack's too: generated into its contract module). `{label}` says where it is written. */
export const MODEL_TEMPLATES = {
  unknownNamespace: "{label}: model '{model}' names the provider '{namespace}', which AIPack does not know: it would send the name to a local Ollama{hint}",
  ollamaTypo: "{label}: model '{model}' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean '{near}'?)",
  didYouMean: " (did you mean '{near}'?)",
} as const;

const fillIn = (template: string, values: Record<string, string>): string => template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? '');

function isAlias(model: string, aliases: ReadonlySet<string>): boolean {
  if (aliases.has(model)) return true;
  return REASONING_SUFFIXES.some((s) => model.endsWith(s) && aliases.has(model.slice(0, -s.length)));
}

/**
 * The warning about a model name written at `label`, or undefined when AIPack takes it as meant. `aliases`: every
 * alias known where the name is written (config, meta block, entry; the stock ones are added).
 */
export function modelNameWarning(label: string, model: string, aliases: Iterable<string>): string | undefined {
  const known = new Set(aliases);
  for (const a of STOCK_MODEL_ALIASES) known.add(a);
  if (isAlias(model, known)) return undefined;
  const sep = model.indexOf(NAMESPACE_SEP);
  if (sep >= 0) {
    const namespace = model.slice(0, sep);
    if ((MODEL_NAMESPACES as readonly string[]).includes(namespace)) return undefined;
    const near = suggest(namespace, MODEL_NAMESPACES, { affix: false });
    const hint = near === undefined ? '' : fillIn(MODEL_TEMPLATES.didYouMean, { near: near + model.slice(sep) });
    return fillIn(MODEL_TEMPLATES.unknownNamespace, { label, model, namespace, hint });
  }
  if (MODEL_PREFIXES.some((p) => model.startsWith(p)) && !model.startsWith('gpt-oss')) return undefined;
  if (model.includes(MODEL_INFIX)) return undefined;
  // `name:tag` is how Ollama names its models
  if (model.includes(':')) return undefined;
  // it goes to Ollama: questioned only when it looks like a typo of an alias or of a provider's name
  const near = nearName(model, [...known]);
  if (near === undefined) return undefined;
  return fillIn(MODEL_TEMPLATES.ollamaTypo, { label, model, near });
}

/** The alias, or the name with its first word spelt as a provider's (`gtp-5` -> `gpt-5`), it is close to. */
function nearName(model: string, aliases: string[]): string | undefined {
  // a name that holds an alias, or is held by one, is another model of its family (`qwen3`, `gpt-oss`), no typo
  const lower = model.toLowerCase();
  const unrelated = aliases.filter((a) => !a.toLowerCase().includes(lower) && !lower.includes(a.toLowerCase()));
  const alias = suggest(model, unrelated, { affix: false });
  if (alias !== undefined && alias !== model) return alias;
  const word = /^[A-Za-z]+/.exec(model)?.[0];
  if (!word || word.length < 3) return undefined;
  const prefix = suggest(word, PREFIX_WORDS, { affix: false });
  if (prefix === undefined || prefix === word.toLowerCase()) return undefined;
  return prefix + model.slice(word.length);
}
