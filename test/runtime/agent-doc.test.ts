import { describe, expect, it } from 'vitest';
import {
  AgentLoadError,
  AgentOptionsError,
  hasTaskStages,
  mapScriptLine,
  parseAgentDoc,
  parseAgentDocCached,
  parseAgentOptions,
  stageChunk,
  stageChunks,
} from '../../src/runtime/agent-doc.ts';

const doc = (...lines: string[]) => parseAgentDoc(lines.join('\n') + '\n', 'agent.aip');

describe('parseAgentDoc: headings', () => {
  it('captures the lua block of each stage', () => {
    const d = doc(
      '# Before All', '```lua', 'return 1', '```',
      '# Data', '```lua', 'return 2', '```',
      '# Output', '```lua', 'return 3', '```',
      '# After All', '```lua', 'return 4', '```',
    );
    expect(d.beforeAll?.code).toBe('return 1\n');
    expect(d.data?.code).toBe('return 2\n');
    expect(d.output?.code).toBe('return 3\n');
    expect(d.afterAll?.code).toBe('return 4\n');
    expect(d.data?.startLine).toBe(7);
  });

  it('does not treat ## or ### as section headings', () => {
    const d = doc('# Data', '## Data', '```lua', 'return "x"', '```', '### Output', '```lua', 'return "y"', '```');
    expect(d.data?.code).toBe('return "x"\n');
    expect(d.output).toBeUndefined();
  });

  it('accepts #Data without a space', () => {
    expect(doc('#Data', '```lua', 'return 1', '```').data?.code).toBe('return 1\n');
  });

  it('matches names case-insensitively and ignores surrounding spaces', () => {
    const d = doc('#   BEFORE all  ', '```lua', 'x = 1', '```', '# dAtA', '```lua', 'y = 2', '```');
    expect(d.beforeAll?.code).toBe('x = 1\n');
    expect(d.data?.code).toBe('y = 2\n');
  });

  it('requires headings at column 0', () => {
    expect(doc(' # Data', '```lua', 'return 1', '```').data).toBeUndefined();
  });

  it('hides headings inside a fence', () => {
    const d = doc('# Instruction', '```md', '# Data', '```', 'after');
    expect(d.data).toBeUndefined();
    expect(d.parts).toHaveLength(1);
    expect(d.parts[0].content).toBe('```md\n# Data\n```\nafter\n');
  });

  it('keeps a 4-tick fence open across 3-tick lines', () => {
    const d = doc('# System', '````md', '```lua', '# Output', '```', '````', '# Output', '```lua', 'return 9', '```');
    expect(d.parts[0].content).toBe('````md\n```lua\n# Output\n```\n````\n');
    expect(d.output?.code).toBe('return 9\n');
  });

  it('does not close a 3-tick fence with a 4-tick line', () => {
    // The ```` line is content of the 3-tick fence, so the # Data inside stays hidden.
    const d = doc('# System', '```', '````', '# Data', '```', 'tail');
    expect(d.data).toBeUndefined();
    expect(d.parts[0].content).toBe('```\n````\n# Data\n```\ntail\n');
  });

  it('ignores ~~~ fences', () => {
    const d = doc('# System', '~~~', '# Data', '~~~');
    expect(d.parts[0].content).toBe('~~~\n');
    expect(d.data).toBeUndefined();
  });

  it('ignores unknown headings and their content, and they end the previous section', () => {
    const d = doc('# Instruction', 'hello', '# Description', 'not part', '```lua', 'return 1', '```', '# Data stuff', '```lua', 'return 2', '```');
    expect(d.parts).toHaveLength(1);
    expect(d.parts[0].content).toBe('hello\n');
    expect(d.data).toBeUndefined();
  });

  it('ignores the legacy # Config section', () => {
    const d = doc('# Config', '```toml', 'model = "x"', '```');
    expect(d.options).toEqual({});
  });

  it('accepts an agent with no sections', () => {
    const d = doc('just prose', 'more prose');
    expect(d.parts).toEqual([]);
    expect(d.options).toEqual({});
    expect(hasTaskStages(d)).toBe(false);
  });

  it('handles CRLF line endings', () => {
    const d = parseAgentDoc('# Data\r\n```lua\r\nreturn 1\r\n```\r\n# User\r\nhi\r\n', 'a.aip');
    expect(d.data?.code).toBe('return 1\n');
    expect(d.parts[0].content).toBe('hi\n');
  });

  it('does not recognise a heading after a BOM', () => {
    expect(parseAgentDoc('\uFEFF# Data\n```lua\nreturn 1\n```\n', 'a.aip').data).toBeUndefined();
  });
});

describe('parseAgentDoc: lua sections', () => {
  it('takes only the first lua block and ignores prose', () => {
    const d = doc('# Data', 'Some prose', 'return "prose"', '```lua', 'return 1', '```', 'more prose', '```lua', 'return 2', '```');
    expect(d.data?.code).toBe('return 1\n');
  });

  it('skips non-lua blocks before the lua block', () => {
    const d = doc('# Data', '```js', '# Output', 'x', '```', '```lua', 'return 1', '```');
    expect(d.data?.code).toBe('return 1\n');
    expect(d.data?.startLine).toBe(7);
    expect(d.output).toBeUndefined();
  });

  it('matches the lua fence by prefix, case-sensitively', () => {
    expect(doc('# Data', '```lua ', 'a()', '```').data?.code).toBe('a()\n');
    expect(doc('# Data', '```luax', 'b()', '```').data?.code).toBe('b()\n');
    expect(doc('# Data', '````lua', '```', 'c()', '````').data?.code).toBe('```\nc()\n');
    expect(doc('# Data', '```Lua', 'd()', '```').data).toBeUndefined();
  });

  it('captures an unclosed lua block to EOF, hiding later headings', () => {
    const d = doc('# Data', '```lua', 'return 1', '# Output', 'x');
    expect(d.data?.code).toBe('return 1\n# Output\nx\n');
    expect(d.output).toBeUndefined();
  });

  it('treats an empty block as an absent stage', () => {
    const d = doc('# Data', '```lua', '```', '# Output', '```lua', '', '```');
    expect(d.data).toBeUndefined();
    expect(d.output?.code).toBe('\n');
  });

  it('concatenates repeated stage headings and maps lines per block', () => {
    const d = doc('# Data', '```lua', 'local a = 1', '```', '# Instruction', 'hi', '# Data', '```lua', 'local b = 2', 'return a + b', '```');
    const s = d.data!;
    expect(s.code).toBe('local a = 1\nlocal b = 2\nreturn a + b\n');
    expect(s.startLine).toBe(3);
    expect(mapScriptLine(s, 1)).toBe(3);
    expect(mapScriptLine(s, 2)).toBe(9);
    expect(mapScriptLine(s, 3)).toBe(10);
  });

  it('lays a stage out as the chunk it runs as: each code line at its .aip line', () => {
    const d = doc('# Data', '```lua', 'local a = 1', '```', '# Instruction', 'hi', '# Data', '```lua', 'local b = 2', 'return a + b', '```');
    expect(stageChunk(d.data!)).toBe('\n\nlocal a = 1\n\n\n\n\n\nlocal b = 2\nreturn a + b\n');
    const all = doc('# Output', '```lua', 'return 2', '```', '# Before All', '```lua', 'return 1', '```');
    expect(stageChunks(all)).toEqual(['\n\n\n\n\n\nreturn 1\n', '\n\nreturn 2\n']);
  });

  it('gives a script the same layout each time it is asked, and scripts with the same code their own', () => {
    const d = doc('# Data', '```lua', 'return 1', '```');
    expect(stageChunk(d.data!)).toBe(stageChunk(d.data!));
    expect(stageChunk({ code: 'x\n', startLine: 3 })).toBe('\n\nx\n');
    expect(stageChunk({ code: 'x\n', startLine: 2 })).toBe('\nx\n');
  });

  it('maps lines from startLine when segments are absent', () => {
    expect(mapScriptLine({ code: 'a\nb\n', startLine: 5 }, 2)).toBe(6);
  });

  it('keeps the raw text (indentation, blank lines)', () => {
    expect(doc('# Data', '```lua', 'if x then', '', '  return 1', 'end', '```').data?.code).toBe('if x then\n\n  return 1\nend\n');
  });
});

describe('parseAgentDoc: prompt parts', () => {
  it('recognises every alias with its kind', () => {
    const names: [string, string][] = [
      ['Instruction', 'instruction'], ['Inst', 'instruction'], ['User', 'instruction'],
      ['System', 'system'],
      ['Assistant', 'assistant'], ['Model', 'assistant'], ['Mind Trick', 'assistant'], ['Jedi Trick', 'assistant'],
    ];
    for (const [heading, kind] of names) {
      const d = doc(`# ${heading}`, 'text');
      expect(d.parts.map((p) => p.kind), heading).toEqual([kind]);
    }
    expect(doc('# System prompt', 'x').parts).toEqual([]);
  });

  it('keeps raw content with sub-headings, fences and html comments, in file order', () => {
    const d = doc('# System', 'sys', '', '# Instruction', '## Sub', '<!-- c -->', '```lua', '# not a heading', '```', '', '# System', 'again');
    expect(d.parts.map((p) => [p.kind, p.line])).toEqual([['system', 1], ['instruction', 4], ['system', 11]]);
    expect(d.parts[0].content).toBe('sys\n\n');
    expect(d.parts[1].content).toBe('## Sub\n<!-- c -->\n```lua\n# not a heading\n```\n\n');
    expect(d.parts[2].content).toBe('again\n');
  });

  it('gives a part at EOF with no lines the content "\\n"', () => {
    expect(parseAgentDoc('# User', 'a.aip').parts[0].content).toBe('\n');
  });

  it('reads header options from the first backtick pair of the lowercased heading', () => {
    const d = doc('# User `cache = TRUE` `other`', 'x', '# System', 'y', '# Model `cache = {{data.c}}`', 'z');
    expect(d.parts[0]).toMatchObject({ kind: 'instruction', headerOptions: 'cache = true' });
    expect(d.parts[1].headerOptions).toBeUndefined();
    expect(d.parts[2]).toMatchObject({ kind: 'assistant', headerOptions: 'cache = {{data.c}}' });
  });

  it('counts prompt parts as task stages', () => {
    expect(hasTaskStages(doc('# System', 'x'))).toBe(true);
    expect(hasTaskStages(doc('# Output', '```lua', 'return 1', '```'))).toBe(true);
    expect(hasTaskStages(doc('# Before All', '```lua', 'return 1', '```'))).toBe(false);
  });
});

describe('parseAgentDoc: # Options', () => {
  it('parses the first toml block into typed options, ignoring unknown keys', () => {
    const d = doc(
      '# Options', 'prose', '```toml',
      'model = "gpt-x"', 'temperature = 0', 'top_p = 0.5', 'input_concurrency = 4', 'allow_run_on_task_fail = true', 'unknown = [1, 2]',
      '[model_aliases]', 'fast = "gpt-mini"',
      '```', '```toml', 'model = "ignored"', '```',
    );
    expect(d.options).toEqual({
      model: 'gpt-x', temperature: 0, top_p: 0.5, input_concurrency: 4, allow_run_on_task_fail: true, model_aliases: { fast: 'gpt-mini' },
    });
  });

  it('rejects wrong types with the file, line and key', () => {
    const bad = (line: string) => () => doc('# Options', '```toml', 'model = "m"', line, '```');
    expect(bad('temperature = "hot"')).toThrowError(/^agent\.aip:4: # Options: option 'temperature' must be a number/);
    expect(bad('input_concurrency = 2.0')).toThrowError(/agent\.aip:4: .*'input_concurrency' must be a non-negative integer/);
    expect(bad('input_concurrency = -1')).toThrowError(/'input_concurrency'/);
    expect(bad('allow_run_on_task_fail = "yes"')).toThrowError(/'allow_run_on_task_fail' must be a boolean/);
    expect(bad('model_aliases = { a = 1 }')).toThrowError(/'model_aliases\.a' must be a string/);
    expect(() => doc('# Options', '```toml', 'model = 3', '```')).toThrowError(AgentLoadError);
  });

  it('rejects invalid TOML naming the file line', () => {
    expect(() => doc('# Instruction', 'x', '# Options', '```toml', 'model = "m"', 'temperature = = 1', '```')).toThrowError(
      /^agent\.aip:6: invalid TOML in # Options/,
    );
  });

  it('parses an unclosed toml block to EOF', () => {
    expect(doc('# Options', '```toml', 'model = "m"').options).toEqual({ model: 'm' });
  });
});

describe('parseAgentOptions', () => {
  it('reads typed values and ignores unknown keys and nil/null', () => {
    expect(parseAgentOptions({ model: 'm', input_concurrency: 3, temperature: 1, resolved_model: 'x', top_p: null }, 'opts')).toEqual({
      model: 'm', input_concurrency: 3, temperature: 1,
    });
    expect(parseAgentOptions(undefined, 'opts')).toEqual({});
    expect(parseAgentOptions([], 'opts')).toEqual({});
    expect(parseAgentOptions({ model_aliases: [] }, 'opts')).toEqual({ model_aliases: {} });
  });

  it('names where and the key on a wrong type', () => {
    expect(() => parseAgentOptions({ input_concurrency: 1.5 }, 'aip.agent.run options')).toThrowError(
      "aip.agent.run options: option 'input_concurrency' must be a non-negative integer, got number 1.5",
    );
    expect(() => parseAgentOptions('fast', 'data_response options')).toThrowError(/^data_response options: Agent Options must be a table/);
    try {
      parseAgentOptions({ model: true }, 'w');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AgentOptionsError);
      expect((e as AgentOptionsError).key).toBe('model');
    }
  });
});

describe('parseAgentDocCached', () => {
  it('parses a file once for the same text, again when its text changes', () => {
    const a = parseAgentDocCached('# Output\n```lua\nreturn 1\n```\n', '/cache/agent.aip');
    expect(parseAgentDocCached('# Output\n```lua\nreturn 1\n```\n', '/cache/agent.aip')).toBe(a);
    const b = parseAgentDocCached('# Output\n```lua\nreturn 2\n```\n', '/cache/agent.aip');
    expect(b).not.toBe(a);
    expect(b.output?.code).toBe('return 2\n');
  });
});
