import { describe, expect, it } from 'vitest';
import { lintAipFile } from '../../src/check/aip-file.ts';

const opts = { minAipackVersion: '0.8.15' };
const at = (content: string, min = '0.8.15') =>
  lintAipFile('agent.aip', content, { minAipackVersion: min }).map((f) => `${f.line}:${f.column} ${f.rule}`);

const CLEAN = [
  '# Options', // 1
  '```toml', // 2
  'model = "gpt-x"', // 3
  'input_concurrency = 2', // 4
  '```', // 5
  '', // 6
  '# Before All', // 7
  '```lua', // 8
  'return aip.flow.before_all_response({ inputs = inputs, before_all = { n = #(inputs or {}) } })', // 9
  '```', // 10
  '', // 11
  '# Data', // 12
  '```lua', // 13
  'local rec = aip.file.load(input.path)', // 14
  'return { content = rec.content, name = string.format("%s", CTX.AGENT_NAME) }', // 15
  '```', // 16
  '', // 17
  '# Instruction', // 18
  '{{data.content}}', // 19
  '', // 20
  '# Output', // 21
  '```lua', // 22
  'return ai_response and ai_response.content or data.content', // 23
  '```', // 24
  '', // 25
  '# After All', // 26
  '```lua', // 27
  'return { outputs = outputs, before_all = before_all }', // 28
  '```', // 29
  '',
].join('\n');

describe('lintAipFile', () => {
  it('accepts a clean agent', () => {
    expect(lintAipFile('agent.aip', CLEAN, opts)).toEqual([]);
  });

  it('reports findings in .aip coordinates, per stage scope', () => {
    const content = CLEAN.replace('return ai_response and', 'return inputs, ai_response and').replace(
      'local rec = aip.file.load(input.path)',
      'local rec = aip.file.copy(input.path, ai_response)',
    );
    expect(lintAipFile('agent.aip', content, { minAipackVersion: '0.8.14' })).toEqual([
      {
        file: 'agent.aip',
        line: 14,
        column: 13,
        rule: 'aip-too-new',
        message: 'aip.file.copy needs AIPack >= 0.8.15; minimum AIPack version checked: 0.8.14',
      },
      {
        file: 'agent.aip',
        line: 14,
        column: 39,
        rule: 'undefined-global',
        message: "undefined global 'ai_response' (stage variable of Output, not of Data)",
      },
      // aip.file.copy returns a FileInfo, which has no content
      { file: 'agent.aip', line: 15, column: 24, rule: 'unknown-field', message: "FileInfo has no field 'content'" },
      {
        file: 'agent.aip',
        line: 23,
        column: 8,
        rule: 'undefined-global',
        message: "undefined global 'inputs' (stage variable of BeforeAll, AfterAll, not of Output)",
      },
    ]);
  });

  it('reports syntax errors and lua54 attribs at .aip lines', () => {
    const content = ['# Data', 'Some prose', '```lua', 'local a <const> = 1', 'local b = (', '```'].join('\n');
    expect(at(content)).toEqual(['4:9 lua54-syntax', '6:1 syntax']);
  });

  it('ignores non-lua blocks and later lua blocks of a section', () => {
    const content = [
      '# Data', // 1
      '```js', // 2
      'undefined_in_js()', // 3
      '```', // 4
      '```lua', // 5
      'return 3000000000', // 6
      '```', // 7
      '```lua', // 8
      'return not_captured', // 9
      '```', // 10
    ].join('\n');
    expect(at(content)).toEqual(['6:8 int-too-large']);
  });

  it('maps lines of a repeated stage heading (blocks concatenated as AIPack does)', () => {
    const content = ['# Data', '```lua', 'X = 1', '```', '# Notes', '# Data', '```lua', 'return X + nope', '```'].join('\n');
    expect(at(content)).toEqual(['8:12 undefined-global']);
  });

  it('reports a # Options block that is not valid TOML, and still lints the Lua', () => {
    const content = ['# Options', '```toml', 'model = "x"', 'temperature = = 2', '```', '# Data', '```lua', 'return nope', '```'].join(
      '\n',
    );
    const f = lintAipFile('agent.aip', content, opts);
    expect(f.map((x) => `${x.line}:${x.column} ${x.rule}`)).toEqual(['4:1 options-toml', '8:8 undefined-global']);
    expect(f[0].message).toMatch(/^invalid TOML in # Options: .*\(AIPack fails to load the agent\)$/);
  });

  it('reports a wrongly typed option', () => {
    const content = ['# Options', '```toml', 'model = "x"', '  input_concurrency = 1.5', '```'].join('\n');
    const f = lintAipFile('agent.aip', content, opts);
    expect(f).toEqual([
      expect.objectContaining({ line: 4, column: 3, rule: 'options-toml', message: expect.stringContaining("'input_concurrency'") }),
    ]);
  });

  it('types a sub-agent\'s task `input` only while Before All keeps the sub-agent input', () => {
    const agent = (beforeAll: string) =>
      ['# Before All', '```lua', beforeAll, '```', '# Output', '```lua', 'return { path = input.path }', '```'].join('\n');
    const rules = (content: string) => lintAipFile('a.aip', content, opts, ['pre']).map((f) => `${f.line}:${f.column} ${f.rule}`);
    // the tasks run over the Before All's own items: their fields and returns are the agent's business
    expect(rules(agent('return aip.flow.before_all_response({ inputs = { { path = "a" } } })'))).toEqual([]);
    // otherwise each task's input is the sub-agent input, and a lone Output answers for the sub-agent
    expect(rules(agent('local n = #inputs'))).toEqual(['7:10 response-key', '7:23 unknown-field']);
  });
});
