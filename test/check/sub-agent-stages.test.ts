import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCheckDetailed } from '../../src/check/index.ts';
import { missingAgentsOfPrompt, stagesFromContract, stagesFromPrompt, type StageMap } from '../../src/check/sub-agent-stages.ts';

let root: string;
const write = (rel: string, content: string) => {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
};
const agent = (lua: string) => `# Output\n\`\`\`lua\n${lua}\n\`\`\`\n`;
const kinds = (map: StageMap) => Object.fromEntries([...map].map(([file, set]) => [file.slice(root.length + 1), [...set].sort()]));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'check-stages-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('stagesFromContract', () => {
  it('reads each case: its stage (stage form), or its event (event form: case on, config on, during)', () => {
    write('agents/a.aip', agent('return nil'));
    const file = write('agents/a.contract.toml', `agent = "a.aip"
[[case]]
name = "stage"
stage = "post_task"
[[case]]
name = "start"
on = "start"
[[case]]
name = "emitted during end"
on = "review::done"
during = "end"
[[case]]
name = "config on"
config = { on = ["ctx::ready"] }
`);
    const map: StageMap = new Map();
    stagesFromContract(file, map);
    expect(kinds(map)).toEqual({ 'agents/a.aip': ['on:post', 'on:pre', 'post_task'] });
  });

  it('skips a pack agent and an unreadable file', () => {
    const map: StageMap = new Map();
    stagesFromContract(write('x.contract.toml', 'agent = "pro@coder/auto-context"\n[[case]]\nname = "a"\n'), map);
    stagesFromContract(write('y.contract.toml', 'agent = [\n'), map);
    expect(map.size).toBe(0);
  });
});

describe('stagesFromPrompt', () => {
  it('reads the entries of a prompt file: stages, or on events; names resolve from the workspace root', () => {
    mkdirSync(join(root, '.aipack'));
    write('my/pre.aip', agent('return nil'));
    write('my/ev.aip', agent('return nil'));
    const prompt = write('.aipack/.prompt/pro@coder/coder-prompt.md', '```toml\n#!meta\nsub_agents = ["my/pre.aip", { name = "my/ev.aip", on = ["start", "end"] }, "my/gone.aip"]\n```\nfix\n');
    const map: StageMap = new Map();
    stagesFromPrompt(prompt, map);
    expect(kinds(map)).toEqual({ 'my/ev.aip': ['on:post', 'on:pre'], 'my/pre.aip': ['pre'] });
    expect(missingAgentsOfPrompt(prompt).map((m) => m.name)).toEqual(['my/gone.aip']);
  });
});

describe('the input an agent is checked against', () => {
  it('an event-form agent reading input.coder_prompts is told about coder_prompt', async () => {
    write('agents/ev.aip', agent('local p = input.coder_prompts\nreturn { coder_prompt = p[1] }'));
    write('agents/ev.contract.toml', 'agent = "ev.aip"\n[[case]]\nname = "a"\non = "start"\n');
    const r = await runCheckDetailed({ root, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings.map((f) => `${f.line}:${f.column} ${f.rule}: ${f.message}`)).toEqual([
      "3:17 unknown-field: input.coder_prompts: upstream pro@coder's event-form input has no field 'coder_prompts' (this pack passes it too, but the agent would not run unchanged under upstream's pack); did you mean coder_prompt?",
    ]);
  });

  it('an event-form post agent reads the post fields; a stage-form post agent is told they are the event form\'s', async () => {
    const lua = 'local r = input.coder_responses[1]\nreturn { agent_result = { r.content_extruded, input.coder_working_file_refs } }';
    write('agents/ev.aip', agent(lua));
    write('agents/ev.contract.toml', 'agent = "ev.aip"\n[[case]]\nname = "a"\non = "end"\n');
    write('agents/st.aip', agent(lua));
    write('agents/st.contract.toml', 'agent = "st.aip"\n[[case]]\nname = "a"\nstage = "post"\n');
    const r = await runCheckDetailed({ root, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`)).toEqual([
      'agents/st.aip:4:29 unknown-field',
      'agents/st.aip:4:53 unknown-field',
    ]);
  });
});
