import { describe, expect, it } from 'vitest';
import { attachmentKind } from '../../src/runtime/attachments.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { runAgentText } from '../helpers/agent-text.ts';

const agent = (attachments: string) =>
  `# Data\n\n\`\`\`lua\nreturn aip.flow.data_response({ attachments = ${attachments} })\n\`\`\`\n\n# Instruction\n\nLook.\n`;

const files = {
  'data/shot.png': 'PNGDATA',
  'data/spec.pdf': '%PDF-1.4 tiny',
  '.aipack/pack/custom/demo/tools/media/logo.jpg': 'JPG',
};

describe('attachments of an AI request, as AIPack sends them', () => {
  it('one user message per file, before the prompt: the path as given, the file name, the title, then the file', () => {
    const { sim } = runAgentText(agent('{ { file_source = "data/shot.png", title = "The screen" }, { file_source = "data/spec.pdf", file_name = "requirements.pdf" } }'), {
      ai: ScriptedAi.fromList([{ content: 'ok' }]),
      inputs: [1],
      files,
    });
    const parts = sim.trace.of('ai')[0]!.parts;
    expect(parts.map((p) => p.role)).toEqual(['user', 'user', 'user']);
    expect(parts[0]).toEqual({
      role: 'user',
      cache: false,
      content: "Here is file attachment.\nFile Path: 'data/shot.png'\nFile Name: 'shot.png'\n\nFile Title: The screen\n",
      attachment: { source: 'data/shot.png', name: 'shot.png', title: 'The screen', kind: 'image', mime: 'image/png', size: 7 },
    });
    // file_name replaces the file's own name; no title, no title line
    expect(parts[1]!.content).toBe("Here is file attachment.\nFile Path: 'data/spec.pdf'\nFile Name: 'requirements.pdf'\n\n");
    expect(parts[1]!.attachment).toMatchObject({ name: 'requirements.pdf', kind: 'pdf', mime: 'application/pdf', size: 13 });
    expect(parts[2]!.content.trim()).toBe('Look.');
  });

  it('a single table is one attachment; a pack path resolves to the installed pack', () => {
    const { sim } = runAgentText(agent('{ file_source = "demo@tools/media/logo.jpg" }'), { ai: ScriptedAi.fromList([{ content: 'ok' }]), inputs: [1], files });
    expect(sim.trace.of('ai')[0]!.parts[0]!.attachment).toEqual({ source: 'demo@tools/media/logo.jpg', name: 'logo.jpg', kind: 'image', mime: 'image/jpeg', size: 3 });
  });

  it('a file that cannot be attached becomes a message saying so, and the request is still sent', () => {
    const { sim } = runAgentText(agent('{ { file_source = "data/none.png" }, { file_source = "nope@pack/x.png" } }'), { ai: ScriptedAi.fromList([{ content: 'ok' }]), inputs: [1], files });
    const parts = sim.trace.of('ai')[0]!.parts;
    expect(parts[0]!.content).toMatch(/^Error while attaching file '\/.*\/data\/none\.png'\nCause: .*No such file/);
    expect(parts[0]!.attachment).toBeUndefined();
    expect(parts[1]!.content).toMatch(/^Error while attaching file 'nope@pack\/x\.png'\nCause: Cannot resolve path 'nope@pack\/x\.png': pack 'nope@pack' is not installed/);
    expect(parts[2]!.content.trim()).toBe('Look.');
  });

  it('a scripted answer may require an attachment by name', () => {
    const ai = ScriptedAi.fromList([
      { attachment: 'other.png', content: 'wrong' },
      { attachment: 'shot.png', content: 'right' },
    ]);
    const { outcome } = runAgentText(agent('{ { file_source = "data/shot.png" } }'), { ai, inputs: [1], files });
    expect(outcome.outputs).toEqual(['right']);
    expect(() => ScriptedAi.fromList([{ attachment: 1 as unknown as string, content: 'x' }])).toThrow(/'attachment' must be a string/);
  });

  it('kinds by extension', () => {
    expect(attachmentKind('a/B.JPEG')).toEqual({ kind: 'image', mime: 'image/jpeg' });
    expect(attachmentKind('notes.md')).toEqual({ kind: 'file', mime: 'application/octet-stream' });
  });
});
