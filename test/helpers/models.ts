/** A workspace whose prompt gives model names, good and misspelt (the model-name checks of `check` and `run`). */
import { tmpDir, write } from '../harness/helpers.ts';

/** A workspace whose prompt gives model names in the meta block, its aliases, an entry's and a member's options. */
export function modelsWorkspace(): { ws: string; prompt: string } {
  const ws = tmpDir();
  write(ws, '.aipack/config.toml', '[options]\nmodel = "m"\n\n[options.model_aliases]\nfast = "gpt-5.4-mini"\n');
  write(ws, 'agents/a.aip', '# Output\n```lua\nreturn nil\n```\n');
  const prompt = write(ws, '.aipack/.prompt/pro@coder/coder-prompt.md', [
    '```toml', '#!meta',
    'model = "sonet"',
    'model_aliases = { cheap = "gtp-5-mini", local = "llama3.2" }',
    'sub_agents = [',
    '  { name = "agents/a.aip", stages = ["pre"], options = { model = "opnai::gpt-4o" } },',
    '  { name = "agents/a.aip", stages = ["pre"], options = { model = "fast-low" } },',
    '  { parallel = [{ name = "agents/a.aip", options = { model = "cheap" } }, { name = "agents/a.aip", options = { model = "chaep" } }], stages = ["pre"] },',
    ']',
    '```', 'Go', '====', '',
  ].join('\n'));
  return { ws, prompt };
}
