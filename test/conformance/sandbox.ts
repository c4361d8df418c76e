/**
 * A virtual stand-in for AIPack's test workspace `tests-data/sandbox-01` and its `tests-data/.aipack-base`:
 * same paths, and the text facts the upstream assertions check (the rest of each file is ours).
 */
export const SANDBOX_DIR = '/virtual/sandbox-01';
export const BASE_DIR = '/virtual/.aipack-base';

const agent = (what: string) => `# Description\n\nA test agent (${what}).\n\n# Output\n\n\`\`\`lua\nreturn "${what}"\n\`\`\`\n`;

const MD_SECTIONS = [
  'Some early text',
  '',
  '- and more early text',
  '',
  '# Heading 1',
  '',
  '> Some heading-1-blockquote',
  '',
  'Some heading-1-content',
  '',
  'And some more heading-1-other-content',
  '',
  '## sub heading 1-a',
  '',
  '> Some heading-1-a-blockquote',
  '',
  'Some heading-1-a-content',
  '',
  'Some heading-1-a-other-content ',
  '',
  '# Heading 2',
  '',
  'Some other content-2',
  '',
  '> heading-2-blockquote ',
  '',
  '```',
  '# Some block content for content-2',
  '```',
  '',
  '# Heading three',
].join('\n');

export function sandboxFiles(): Record<string, string> {
  const ws: Record<string, string> = {
    '.aipack/config.toml': '[options]\nmodel = "test-model"\n',
    'file-01.txt': 'content of file-01.txt',
    'file-02.txt': 'content of file-02.txt',
    'other/hello.txt': 'hello from the other/hello.txt',
    'other/md-sections.md': MD_SECTIONS,
    'other/test_load_json.json':
      '{\n  "name": "Test JSON",\n  "version": 1.2,\n  "enabled": true,\n  "items": ["item1", "item2"],\n  "nested": { "key": "value" },\n  "nullable": null\n}\n',
    'other/test_load_ndjson.ndjson':
      '{"name": "item1", "value": 10}\n{"name": "item2", "value": 20, "active": true}\n\n{"name": "item3", "value": null, "tags": ["a", "b"]}\n',
    'agent-script/agent-hello.aip': agent('from agent-hello.aip'),
    'agent-script/agent-hello-world.aip': agent('hello world'),
    // four lua blocks: the first makes inputs with before_all_response, the second answers "Data with input"
    'agent-script/agent-before-all-inputs-gen.aip': [
      '# Before All',
      '',
      '```lua',
      'return aip.flow.before_all_response({ inputs = { "one", "two", "three" } })',
      '```',
      '',
      '# Data',
      '',
      '```lua',
      'return "Data with input: " .. input',
      '```',
      '',
      '# Output',
      '',
      '```lua',
      'return data',
      '```',
      '',
      '# After All',
      '',
      '```lua',
      'return outputs',
      '```',
      '',
    ].join('\n'),
    'sub-dir-a/agent-hello-2.aip': agent('from agent-hello-2.aip'),
    'sub-dir-a/sub-sub-dir/agent-hello-3.aip': agent('from agent-hello-3.aip'),
    'sub-dir-a/sub-sub-dir/main.aip': agent('from sub-sub-dir/main.aip'),
    '.aipack/pack/custom/ns_a/pack_a_1/main.aip': agent('custom ns_a@pack_a_1 main.aip'),
    '.aipack/pack/custom/ns_b/pack_b_1/main.aip': agent('custom ns_b@pack_b_1 main.aip'),
    '.aipack/support/pack/ns_a/pack_a_1/extra/test.txt': 'Some support content - ..@..$workspace/extra/test.txt',
  };
  const base: Record<string, string> = {
    'pack/custom/ns_b/pack_b_2/main.aip': agent('custom ns_b@pack_b_2 main.aip'),
    'pack/installed/ns_b/pack_b_2/main.aip': agent('installed ns_b@pack_b_2 main.aip'),
    'pack/installed/ns_d/pack_d_1/main.aip': agent('installed ns_d@pack_d_1 main.aip'),
    'support/pack/ns_b/pack_b_2/extra/test.txt': 'Some support content - ..@..$base/extra/test.txt',
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ws)) out[`${SANDBOX_DIR}/${k}`] = v;
  for (const [k, v] of Object.entries(base)) out[`${BASE_DIR}/${k}`] = v;
  return out;
}
