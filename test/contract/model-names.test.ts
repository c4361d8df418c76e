import { describe, expect, it } from 'vitest';
import { modelNameWarning } from '../../src/contract/model-names.ts';

const warn = (model: string, aliases: string[] = []) => modelNameWarning('x', model, aliases);

describe('modelNameWarning (a model name AIPack would not take as meant)', () => {
  it('takes what AIPack sends where it is meant: aliases, reasoning suffixes, provider names and namespaces, Ollama models', () => {
    for (const name of [
      'flash', 'sonnet', 'flash-low', 'luna-xhigh', 'fast', 'fast-high',
      'gpt-5.6-luna', 'gpt-4o-mini', 'o3-mini', 'claude-sonnet-4-5', 'gemini-2.5-pro', 'grok-4', 'glm-4.6', 'deepseek-chat',
      'command-r', 'kimi-k2', 'MiniMax-M3', 'accounts/fireworks/models/x',
      'openai::gpt-4o', 'zai::glm-5.2', 'qwen_cloud::qwen3.8-max', 'ollama::llama3.2', 'baidu-coding-openai::x',
      'llama3.2', 'qwen2.5-coder:7b', 'gpt-oss:20b', 'gpt-oss', 'qwen3', 'lunar', 'deepseek-r1:8b', 'mistral', 'gemma3:27b', 'phi4', 'codellama',
    ]) {
      expect(warn(name, ['fast']), name).toBeUndefined();
    }
  });

  it('warns about a namespace no provider has, and a name that goes to Ollama while it looks like a typo', () => {
    expect(warn('opnai::gpt-4o')).toBe("x: model 'opnai::gpt-4o' names the provider 'opnai', which AIPack does not know: it would send the name to a local Ollama (did you mean 'openai::gpt-4o'?)");
    expect(warn('acme::m')).toBe("x: model 'acme::m' names the provider 'acme', which AIPack does not know: it would send the name to a local Ollama");
    expect(warn('sonet')).toBe("x: model 'sonet' is no model alias and no provider's model name: AIPack would send it to a local Ollama (did you mean 'sonnet'?)");
    expect(warn('gtp-5')).toMatch(/did you mean 'gpt-5'\?\)$/);
    expect(warn('cluade-sonnet-4')).toMatch(/did you mean 'claude-sonnet-4'\?\)$/);
    expect(warn('fsat', ['fast'])).toMatch(/did you mean 'fast'\?\)$/);
  });
});
