import { describe, expect, it } from 'vitest';
import { parseAgentDoc } from '../../src/runtime/agent-doc.ts';
import { renderPromptParts } from '../../src/runtime/prompt-parts.ts';

describe('renderPromptParts', () => {
  const root = { data: { name: 'World', cache: true, blank: '' }, input: { path: 'src/a.ts' }, before_all: { n: 2 } };

  it('renders each part with data/input/before_all, in file order, with roles', () => {
    const doc = parseAgentDoc(
      ['# System', 'Be brief {{before_all.n}}', '# Instruction', 'Hello {{data.name}} from {{input.path}}', '# Assistant', 'ok'].join('\n'),
      'a.aip',
    );
    expect(renderPromptParts(doc.parts, root)).toEqual([
      { role: 'system', content: 'Be brief 2\n', cache: false },
      { role: 'user', content: 'Hello World from src/a.ts\n', cache: false },
      { role: 'assistant', content: 'ok\n', cache: false },
    ]);
  });

  it('drops parts that render to whitespace only', () => {
    const doc = parseAgentDoc('# System\n{{data.blank}}\n\n# User\n{{#if data.nope}}x{{/if}}\n# User\nkept\n', 'a.aip');
    expect(renderPromptParts(doc.parts, root)).toEqual([{ role: 'user', content: 'kept\n', cache: false }]);
  });

  it('renders and parses header options', () => {
    const doc = parseAgentDoc('# User `cache = true`\nA\n# User `cache = {{data.cache}}`\nB\n# User `cache = false`\nC\n', 'a.aip');
    expect(renderPromptParts(doc.parts, root).map((m) => [m.content, m.cache])).toEqual([['A\n', true], ['B\n', true], ['C\n', false]]);
  });

  it('does not parse the options of a dropped part', () => {
    const doc = parseAgentDoc('# User `not toml at all`\n   \n', 'a.aip');
    expect(renderPromptParts(doc.parts, root)).toEqual([]);
  });

  it('rejects bad header options naming the file and line', () => {
    const doc = parseAgentDoc('# System\nx\n# User `cache = yes`\nA\n', 'a.aip');
    expect(() => renderPromptParts(doc.parts, root, 'a.aip')).toThrowError(/^a\.aip:3: invalid prompt part options `cache = yes`/);
    const doc2 = parseAgentDoc('# User `cache = "yes"`\nA\n', 'a.aip');
    expect(() => renderPromptParts(doc2.parts, root, 'a.aip')).toThrowError(/^a\.aip:1: prompt part option 'cache' must be a boolean/);
  });

  it('maps template errors to the .aip line', () => {
    const doc = parseAgentDoc('# System\nintro\n\n# Instruction\nline one\n{{#each data.x}}\nno close\n', 'a.aip');
    // Handlebars reports the error at template line 4 (EOF after "no close\n"), i.e. file line 4 + 4 = 8.
    expect(() => renderPromptParts(doc.parts, root, 'a.aip')).toThrowError(/^a\.aip:8: cannot render the instruction part \(heading at line 4\)/);
    // With header options the template starts on the heading line: EOF (template line 3) is file line 3.
    const withOptions = parseAgentDoc('# User `cache = true`\n{{#if x}}\n', 'b.aip');
    expect(() => renderPromptParts(withOptions.parts, root, 'b.aip')).toThrowError(/^b\.aip:3: cannot render the instruction part/);
    // Runtime helper errors carry no line: the heading line is named.
    const helperError = parseAgentDoc('# System\nok\n# User\n\n{{len}}\n', 'c.aip');
    expect(() => renderPromptParts(helperError.parts, root, 'c.aip')).toThrowError(/^c\.aip:3: .*helper 'len' needs 1 parameter/);
  });

  it('treats absent root values as null', () => {
    const doc = parseAgentDoc('# User\n[{{input}}][{{data}}]\n', 'a.aip');
    expect(renderPromptParts(doc.parts, { data: undefined, input: undefined, before_all: undefined })[0].content).toBe('[][]\n');
  });
});
