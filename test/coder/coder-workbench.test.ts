/**
 * The workbench, end to end: a prompt written from upstream pro@coder's own template with
 * `workbench: { chat: true, goal: true, plan: true }` and auto-context on, and a text file, a PNG and a PDF in the
 * workbench's data/ (fixtures/coder-workbench). The files are made where upstream makes them, the coder's request
 * carries the workbench files and the two attachments, and a sub-agent on workbench::done reads coder_workbench.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completed, runCoder } from '../helpers/coder.ts';

const WB_WS = fileURLToPath(new URL('../../fixtures/coder-workbench', import.meta.url)).replace(/[\\/]$/, '');
// the workbench folder as upstream names it (from the prompt path as given); files listed from it come without "./"
const WB = './prompts/wb/workbench-default';
const LISTED = 'prompts/wb/workbench-default';

describe('a workbench with chat, goal, plan and data; AIP_TO_PIN in the answer', () => {
  const r = runCoder('prompts/wb', { workspace: WB_WS });

  it('makes the workbench files where upstream makes them, rules from the prompt-local templates, never overwriting', () => {
    completed(r);
    const created = r.sim.vfs.changes().created;
    expect(created.filter((p) => p.includes('/workbench-default/') || p.includes('/user-templates/')).sort()).toEqual([
      'prompts/wb/user-templates/suggest-commit.md',
      'prompts/wb/user-templates/workbench-chat-rules.md',
      'prompts/wb/user-templates/workbench-plan-rules.md',
      'prompts/wb/user-templates/workbench-spec-rules.md',
      'prompts/wb/workbench-default/.cache/_chat-rules.md',
      'prompts/wb/workbench-default/.cache/_goal-rules.md',
      'prompts/wb/workbench-default/.cache/_plan-rules.md',
      // what auto-context showed its model about the data files, as upstream keeps it
      'prompts/wb/workbench-default/.cache/auto-context/last_data_file_descriptions.md',
      'prompts/wb/workbench-default/.cache/code-map/data-code-map.json',
      'prompts/wb/workbench-default/.cache/last_ai_responses_for_prompt.md',
      'prompts/wb/workbench-default/.cache/last_ai_responses_for_raw.md',
      'prompts/wb/workbench-default/.cache/last_prompt_file_paths.md',
      'prompts/wb/workbench-default/chat.md',
      'prompts/wb/workbench-default/goal.md',
      'prompts/wb/workbench-default/plan.md',
    ]);
    expect(r.file('prompts/wb/workbench-default/chat.md')).toMatch(/^# Dev Chat\n\nAdd a new `## Request: /);
    expect(r.file('prompts/wb/workbench-default/goal.md')).toBe('');
    // the rules are the prompt-local templates' text; the user's edited copy (in the fixture) is kept and used
    expect(r.file('prompts/wb/user-templates/workbench-goal-rules.md')).toBe('# My goal rules\n\n- One line per goal.\n');
    expect(r.file('prompts/wb/workbench-default/.cache/_goal-rules.md')).toBe('# My goal rules\n\n- One line per goal.\n');
    expect(r.file('prompts/wb/workbench-default/.cache/_plan-rules.md')).toBe(r.file('prompts/wb/user-templates/workbench-plan-rules.md'));
  });

  it("sends the workbench: rules as knowledge, chat/goal/plan as the last context files, the text data file, and names the folder", () => {
    const prompt = r.ai.at(-1)!.prompt;
    for (const kind of ['chat', 'goal', 'plan']) {
      expect(prompt).toContain(`<KNOWLEDGE_FILE file_path="${LISTED}/.cache/_${kind}-rules.md">`);
    }
    const context = [...prompt.matchAll(/<CONTEXT_FILE file_path="([^"]+)">/g)].map((m) => m[1]);
    expect(context).toEqual(['src/app.ts', `${LISTED}/chat.md`, `${LISTED}/goal.md`, `${LISTED}/plan.md`]);
    expect(prompt).toContain(`<WORKBENCH_DATA_FILE file_path="prompts/wb/workbench-default/data/notes.md">`);
    expect(prompt).not.toContain('<WORKBENCH_DATA_FILE file_path="prompts/wb/workbench-default/data/screen.png"');
    expect(prompt).toContain(`The workbench of this prompt is the folder \`${WB}\``);
    expect(prompt).toContain(`- \`plan.md\`: \`${WB}/plan.md\``);
    expect(r.file('prompts/wb/workbench-default/.cache/last_prompt_file_paths.md')).toContain(
      '# Workbench Data Files\n\n## All resolve files(sent to AI with content, in this order)\n\n- prompts/wb/workbench-default/data/notes.md\n',
    );
  });

  it("attaches the PNG and the PDF auto-context picked, as AIPack sends attachments, to the coder's request and to the code map's", () => {
    const attached = r.ai.at(-1)!.parts.filter((p) => p.attachment).map((p) => p.attachment);
    expect(attached).toEqual([
      { source: 'prompts/wb/workbench-default/data/screen.png', name: 'screen.png', kind: 'image', mime: 'image/png', size: 70 },
      { source: 'prompts/wb/workbench-default/data/brief.pdf', name: 'brief.pdf', kind: 'pdf', mime: 'application/pdf', size: 77 },
    ]);
    const mapCalls = r.sim.trace.of('ai').filter((e) => e.agent === 'pro@coder/code-map');
    const mapAttachments = mapCalls.flatMap((e) => e.parts.filter((p) => p.attachment).map((p) => [p.attachment!.name, p.attachment!.title]));
    expect(mapAttachments.sort()).toEqual([
      ['brief.pdf', 'Code-map pdf: prompts/wb/workbench-default/data/brief.pdf'],
      ['screen.png', 'Code-map image: prompts/wb/workbench-default/data/screen.png'],
    ]);
    expect(r.file('src/app.ts')).toContain("'Shop - Home'");
  });

  it('runs the sub-agent on workbench::done after the start queue; it reads coder_workbench', () => {
    expect(r.calls.map((c) => [c.agent, c.input.event])).toEqual([
      // auto-context runs code-map first
      ['pro@coder/code-map', 'start'],
      ['pro@coder/auto-context', 'start'],
      ['my-agents/wb-reader.aip', 'workbench::done'],
    ]);
    expect(r.file('notes/workbench.md')).toBe(
      [
        'event=workbench::done',
        `dir=${WB}`,
        `chat=${WB}/chat.md`,
        `goal=${WB}/goal.md`,
        `plan=${WB}/plan.md`,
        'spec=nil',
        `data=${WB}/data`,
        'kinds=text,pdf,image',
        'chat exists=true',
        '',
      ].join('\n'),
    );
  });

  it('pins each non-empty tag as a task pin named by its label, priority an integer else 1; the tags stay in the answer', () => {
    completed(r);
    const pins = r.sim.trace.of('pin').filter((e) => e.agent === 'pro@coder' && e.scope === 'task' && ['Next step', 'Odd', 'Empty'].includes(e.iden));
    expect(pins.map((e) => [e.iden, e.priority, e.content])).toEqual([
      ['Next step', 2, { label: 'Next step', content: 'Check the footer against the screenshot.' }],
      ['Odd', 1, { label: 'Odd', content: 'A priority that is not an integer counts as 1.' }],
    ]);
    expect(r.file('prompts/wb/coder-prompt.md')).toContain('<AIP_TO_PIN label="Next step" priority="2">Check the footer against the screenshot.</AIP_TO_PIN>');
  });
});
