import { describe, expect, it } from 'vitest';
import { NoScriptedResponseError, ScriptedAi, ScriptedAiError, type AiRequest } from '../../src/runtime/ai.ts';

const req = (prompt: string, agentName = 'pro@coder', agentFile = '/packs/pro/coder/main.aip', model?: string): AiRequest => ({
  agentName,
  agentFile,
  messages: [{ role: 'user', content: prompt }],
  model,
});

describe('ScriptedAi', () => {
  it('answers in file order, each response once by default', () => {
    const ai = ScriptedAi.fromToml(
      ['[[response]]', 'content = "first"', '', '[[response]]', 'content = "second"'].join('\n'),
      'ai.toml',
    );
    expect(ai.answer(req('x')).content).toBe('first');
    expect(ai.answer(req('x')).content).toBe('second');
    expect(() => ai.answer(req('x'))).toThrowError(NoScriptedResponseError);
    expect(ai.remaining()).toEqual([]);
  });

  it('filters by regex over all messages joined with a blank line', () => {
    const ai = ScriptedAi.fromToml(
      ['[[response]]', 'match = "PRE-MARKER[\\\\s\\\\S]*done"', 'content = "matched"', '[[response]]', 'content = "fallback"'].join('\n'),
      'ai.toml',
    );
    const multi: AiRequest = {
      agentName: 'a',
      agentFile: 'a.aip',
      messages: [
        { role: 'system', content: 'PRE-MARKER' },
        { role: 'user', content: 'all done' },
      ],
    };
    expect(ai.answer(req('nothing here')).content).toBe('fallback');
    expect(ai.answer(multi).content).toBe('matched');
  });

  it('filters by agent name as called and by file name with or without .aip', () => {
    const ai = ScriptedAi.fromList([
      { agent: 'pro@coder', content: 'by name', reusable: true },
      { agent: 'sub.aip', content: 'by file', reusable: true },
      { agent: 'other', content: 'by stem', reusable: true },
    ]);
    expect(ai.answer(req('p')).content).toBe('by name');
    expect(ai.answer(req('p', 'agents/sub', '/w/agents/sub.aip')).content).toBe('by file');
    expect(ai.answer(req('p', './x/other.aip', '/w/x/other.aip')).content).toBe('by stem');
    expect(ai.answer(req('p', 'main-caller', 'C:\\w\\other.aip')).content).toBe('by stem');
    expect(() => ai.answer(req('p', 'nobody', '/w/nobody.aip'))).toThrowError(/no scripted AI response for nobody/);
  });

  it('reuses reusable responses and reports the ones never used', () => {
    const ai = ScriptedAi.fromList([
      { match: 'again', content: 'R', reusable: true },
      { match: 'once', content: 'O' },
      { match: 'never', content: 'N' },
    ]);
    expect(ai.answer(req('again')).content).toBe('R');
    expect(ai.answer(req('again')).content).toBe('R');
    expect(ai.answer(req('once')).content).toBe('O');
    expect(() => ai.answer(req('once'))).toThrowError(NoScriptedResponseError);
    expect(ai.remaining()).toEqual([{ match: 'never', content: 'N' }]);
  });

  it('puts the rendered prompt in the no-match error', () => {
    const ai = ScriptedAi.fromList([{ match: 'zzz', content: 'x' }]);
    const r: AiRequest = { agentName: 'demo', agentFile: 'demo.aip', messages: [{ role: 'system', content: 'SYS' }, { role: 'user', content: 'ask me' }] };
    try {
      ai.answer(r);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NoScriptedResponseError);
      const err = e as NoScriptedResponseError;
      expect(err.message.startsWith('no scripted AI response for demo\n')).toBe(true);
      expect(err.message).toContain('SYS\n\nask me');
      expect(err.prompt).toBe('SYS\n\nask me');
    }
  });

  it('builds the ai_response shape with deterministic usage and info', () => {
    const ai = ScriptedAi.fromList([{ content: 'abcdefghi' }, { content: '', model: 'm2' }, { content: 'z' }]);
    const a = ai.answer(req('12345', 'x', 'x.aip', 'gpt-test'));
    expect(a).toEqual({
      content: 'abcdefghi',
      reasoning_content: undefined,
      model_name: 'gpt-test',
      adapter_kind: 'Scripted',
      usage: { prompt_tokens: 2, completion_tokens: 3, prompt_tokens_details: {}, completion_tokens_details: {} },
      price_usd: 0,
      duration_sec: 0,
      info: 'Duration: 0ms | Prompt Tokens: 2 | Completion Tokens: 3 | Model: gpt-test | Adapter: Scripted',
    });
    // pro@coder splits info at "| Model"
    expect(a.info.split('| Model')[1]).toBe(': gpt-test | Adapter: Scripted');
    const empty = ai.answer(req('p', 'x', 'x.aip', 'gpt-test'));
    expect(empty.content).toBeUndefined();
    expect(empty.model_name).toBe('m2');
    expect(ai.answer(req('p')).model_name).toBe('scripted');
    const withTemp = ScriptedAi.fromList([{ content: 'c' }]).answer({ ...req('p'), temperature: 0.2, top_p: 0.9 });
    expect(withTemp.info).toMatch(/\| Adapter: Scripted \| Temperature: 0\.2 \| top_p: 0\.9$/);
  });

  it('accepts an empty file', () => {
    expect(ScriptedAi.fromToml('', 'empty.toml').remaining()).toEqual([]);
  });

  it('rejects bad files naming the file and the response index', () => {
    const bad = (text: string) => () => ScriptedAi.fromToml(text, 'ai.toml');
    expect(bad('[[response]]\ncontent = "x"\n[[response]]\ncontent = "y"\ncontnet = "typo"')).toThrowError(
      /^ai\.toml: \[\[response\]\] #2: unknown key 'contnet'/,
    );
    expect(bad('[[response]]\ncontent = 3')).toThrowError(/^ai\.toml: \[\[response\]\] #1: 'content' must be a string, got integer/);
    expect(bad('[[response]]\ncontent = "x"\nreusable = "yes"')).toThrowError(/#1: 'reusable' must be a boolean/);
    expect(bad('[[response]]\nmatch = "x"')).toThrowError(/#1: missing 'content'/);
    expect(bad('[[response]]\ncontent = "x"\nmatch = "(unclosed"')).toThrowError(/^ai\.toml: \[\[response\]\] #1: invalid regex in 'match'/);
    expect(bad('[[response]]\ncontent = "x"\nagent = ["a"]')).toThrowError(/'agent' must be a string/);
    expect(bad('[[response]]\ncontent = = "x"')).toThrowError(/^ai\.toml:2: invalid TOML/);
    expect(bad('responses = []')).toThrowError(/^ai\.toml: unknown top-level key 'responses'/);
    expect(bad('response = "x"')).toThrowError(/'response' must be an array of tables/);
    expect(bad('[[response]]\ncontent = "x"')).not.toThrow();
    expect(() => ScriptedAi.fromList([{ content: 'x', match: '[' }])).toThrowError(ScriptedAiError);
  });
});
