import { describe, expect, it } from 'vitest';
import { modelNameFindings } from '../../src/check/model-names.ts';
import { modelsWorkspace } from '../helpers/models.ts';

describe('modelNameFindings (the model names a prompt file gives)', () => {
  it('warns where each name is written, with did-you-mean; config and meta aliases are names', () => {
    const { ws, prompt } = modelsWorkspace();
    const shown = modelNameFindings(ws, prompt).map((f) => `${f.line}:${f.column} ${f.severity} ${f.rule} ${f.message}`);
    expect(shown).toEqual([
      "3:9 warning model-name meta block model: model 'sonet' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'sonnet'?)",
      "4:27 warning model-name meta block model_aliases.cheap: model 'gtp-5-mini' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'gpt-5-mini'?)",
      "6:66 warning model-name sub_agents[1] options.model: model 'opnai::gpt-4o' names the provider 'opnai', which AIPack does not know: it would send the name to a local Ollama (did you mean 'openai::gpt-4o'?)",
      "8:120 warning model-name sub_agents[3]: parallel[2] options.model: model 'chaep' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'cheap'?)",
    ]);
  });
});
