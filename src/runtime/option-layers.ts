/** Agent options in layers (stock, config, the agent's own, a stage's flow response): merged, shown, aliases resolved. */
import { parse as parseToml } from 'smol-toml';
import { parseAgentOptions, type AgentOptions } from './agent-doc.ts';

/** AIPack's stock config-default.toml sets a model and input_concurrency = 2; the simulator's model is scripted. */
export const STOCK_OPTIONS: AgentOptions = { model: 'sim-model', input_concurrency: 2 };

/** Later layers win key by key; `model_aliases` merge. */
export function mergeOptions(...layers: AgentOptions[]): AgentOptions {
  const out: AgentOptions = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) continue;
      if (k === 'model_aliases') out.model_aliases = { ...(out.model_aliases ?? {}), ...(v as Record<string, string>) };
      else (out as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

/** The `options` table a stage sees. */
export function optionsTable(o: AgentOptions): Record<string, unknown> {
  return {
    model: o.model,
    resolved_model: o.model === undefined ? undefined : resolveModel(o.model, o.model_aliases ?? {}),
    temperature: o.temperature,
    top_p: o.top_p,
    input_concurrency: o.input_concurrency,
    allow_run_on_task_fail: o.allow_run_on_task_fail,
    model_aliases: o.model_aliases,
  };
}

const REASONING_SUFFIXES = ['-none', '-zero', '-minimal', '-low', '-medium', '-high', '-xhigh', '-max'];

/** AIPack's resolve_model: alias hit; else alias of the name without a reasoning suffix, suffix re-appended. */
export function resolveModel(model: string, aliases: Record<string, string>): string {
  // own keys only: a model named like an Object.prototype member ("constructor") is not an alias
  if (Object.hasOwn(aliases, model)) return aliases[model];
  for (const suffix of REASONING_SUFFIXES) {
    if (model.endsWith(suffix)) {
      const base = model.slice(0, -suffix.length);
      if (Object.hasOwn(aliases, base)) return aliases[base] + suffix;
    }
  }
  return model;
}

/** The workspace config's text is not TOML. */
export class ConfigTomlError extends Error {}

/** `[options]` (or the older `[default_options]`) of a workspace config's text; none when there is no config. */
export function configOptions(text: string | undefined, configFile: string): AgentOptions {
  if (text === undefined) return {};
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigTomlError(`${configFile}: invalid TOML: ${(err as Error).message}`);
  }
  const table = parsed.options ?? parsed.default_options;
  return table === undefined ? {} : parseAgentOptions(table, `${configFile} [options]`);
}
