/**
 * The workbench's missing-files handoff (an answer's `<missing_files>` saved for the next auto-context run, which
 * reads it as a helper and deletes it), the `attachments` run pin, and which files count in max_files_size_kb
 * (images and PDFs matched by the main globs are neither sent nor counted), as upstream pro@coder has them.
 */
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedAi, type ScriptedResponse } from '../../src/runtime/ai.ts';
import { REPO_PACK } from '../../src/runtime/packs.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { tmpDir, write } from '../harness/helpers.ts';

const PROMPT_DIR = '.aipack/.prompt/pro@coder';
const HANDOFF = `${PROMPT_DIR}/workbench-default/.cache/auto-context/missing-files.md`;
// a PNG header: AIPack does not find it likely text
const PNG = '\x89PNG\r\n\x1a\n' + '\0'.repeat(2000);

function coder(ws: string, meta: string, answers: ScriptedResponse[], inst = 'Do it.') {
  write(ws, `${PROMPT_DIR}/coder-prompt.md`, `\`\`\`toml\n#!meta\n${meta}\nwrite_mode = true\n\`\`\`\n${inst}\n\n====\n`);
  const sim = new Simulator({ workspaceDir: ws, packs: [REPO_PACK], aipackVersion: '0.8.33', ai: ScriptedAi.fromList(answers) });
  sim.run({ name: 'pro@coder', baseDir: ws });
  const ai = sim.trace.of('ai');
  return {
    file: (rel: string) => sim.vfs.readFile(nodePath.join(ws, rel)),
    prompt: (agent: RegExp) => ai.filter((e) => agent.test(e.agent)).map((e) => e.prompt).join('\n'),
    pins: sim.trace.of('pin').map((e) => ({ iden: e.iden, priority: e.priority, content: e.content })),
    answer: () => sim.vfs.readFile(nodePath.join(ws, `${PROMPT_DIR}/coder-prompt.md`))!.split('\n====\n')[1] ?? '',
  };
}

const MISSING = `I need more.

<missing_files>
<mf_message>
The style guide would help.
</mf_message>
<mf_files>
- \`docs/style.md\`
* src/util.ts
</mf_files>
</missing_files>
`;

describe('the missing-files handoff', () => {
  it("saves the answer's request in the workbench cache, which the next auto-context run shows as a helper and deletes", () => {
    const ws = tmpDir();
    write(ws, 'src/main.ts', 'export const main = 1;\n');
    const first = coder(ws, 'context_globs = ["src/**/*.ts"]', [{ agent: 'pro@coder', content: MISSING }]);
    const saved = first.file(HANDOFF);
    expect(saved).toBe(
      '# Missing Files Context Request\n\n## Diagnostic\n\nThe style guide would help.\n\n## Requested Files\n\n- `docs/style.md`\n- `src/util.ts`\n\n' +
        '## Auto-context Instruction\n\nInclude the requested files in the next context selection when they are available.\n',
    );
    // each simulated run keeps its writes to itself: the next run starts from the files the first one left
    write(ws, HANDOFF, saved!);
    const second = coder(ws, 'context_globs = ["src/**/*.ts"]\nauto_context = "flash"', [
      { agent: 'pro@coder/code-map', content: '<FILE_INFO>{"summary": "Main", "when_to_use": "always"}</FILE_INFO>', reusable: true },
      { agent: 'pro@coder/auto-context', content: '<needed_context_files>["src/main.ts"]</needed_context_files>' },
      { agent: 'pro@coder', content: 'Done.' },
    ]);
    expect(second.prompt(/auto-context/)).toContain(`<HELPER_FILE name="${HANDOFF}">\n${saved}`);
    expect(second.file(HANDOFF)).toBeUndefined();
  });

  it('an answer without a message or without files asks for nothing', () => {
    const ws = tmpDir();
    const r = coder(ws, 'context_globs = []', [{ agent: 'pro@coder', content: '<missing_files><mf_message>Hm.</mf_message></missing_files>' }]);
    expect(r.file(HANDOFF)).toBeUndefined();
  });
});

describe('media in the request', () => {
  it('pins the attachments of the run (priority 10, one line per file with its size)', () => {
    const ws = tmpDir();
    write(ws, `${PROMPT_DIR}/shot.png`, PNG);
    write(ws, 'docs/brief.pdf', '%PDF-1.4\n');
    const r = coder(ws, 'context_globs = []\nattachments = ["docs/brief.pdf"]', [{ agent: 'pro@coder', content: 'Done.' }], 'See ![the screen](shot.png).');
    const pin = r.pins.find((p) => p.iden === 'attachments');
    expect(pin?.priority).toBe(10);
    // the inline image by absolute path, as upstream gives it; the param's attachment as written
    const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(pin?.content).toEqual({ label: 'Attachments:', content: expect.stringMatching(new RegExp(`^- ${escapeRegExp(nodePath.join(ws, PROMPT_DIR))}/shot\\.png \\(.+\\)\\n- docs/brief\\.pdf \\(.+\\)$`)) });
  });

  it('an image or a PDF the main globs match is neither sent as a file nor counted in max_files_size_kb', () => {
    const ws = tmpDir();
    write(ws, 'src/main.ts', 'export const main = 1;\n');
    write(ws, 'src/logo.png', PNG);
    const r = coder(ws, 'context_globs = ["src/*"]\nmax_files_size_kb = 1', [{ agent: 'pro@coder', content: 'Done.' }]);
    const sent = r.prompt(/^pro@coder$/);
    expect(sent).toContain('<CONTEXT_FILE file_path="src/main.ts">');
    expect(sent).not.toContain('logo.png');
    expect(r.answer()).toContain('Done.');
  });
});
