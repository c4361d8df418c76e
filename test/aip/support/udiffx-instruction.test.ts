import { describe, expect, it } from 'vitest';
import { extractFileChanges } from '../../../src/aip/support/udiffx-changes.ts';
import { FILE_CHANGES_INSTRUCTION } from '../../../src/aip/support/udiffx-instruction.ts';
import { applyPatch } from '../../../src/aip/support/udiffx-patch.ts';

describe('FILE_CHANGES_INSTRUCTION', () => {
  it('teaches the format apply_file_changes reads: its own example parses and its patch applies', () => {
    // the first block of the text shows the envelope only; the example is the block after '## Example'
    const example = FILE_CHANGES_INSTRUCTION.slice(FILE_CHANGES_INSTRUCTION.indexOf('## Example'));
    expect(example).not.toBe(FILE_CHANGES_INSTRUCTION);
    const { directives } = extractFileChanges(example);
    expect(directives.map((d) => [d.kind, 'file_path' in d ? d.file_path : undefined])).toEqual([
      ['Patch', 'src/main.ts'],
      ['New', 'src/log.ts'],
      ['Delete', 'src/old.ts'],
    ]);
    const patch = directives[0] as { content: string };
    const before = "import { run } from './run.ts';\n\nexport function main() {\n  run();\n}\n";
    const result = applyPatch(before, patch.content);
    expect(result.hunkErrors).toEqual([]);
    expect(result.newContent).toBe("import { run } from './run.ts';\nimport { log } from './log.ts';\n\nexport function main() {\n  log(run());\n}\n");
  });

  it('names every change tag the envelope knows', () => {
    for (const tag of ['FILE_NEW', 'FILE_PATCH', 'FILE_APPEND', 'FILE_COPY', 'FILE_RENAME', 'FILE_DELETE']) {
      expect(FILE_CHANGES_INSTRUCTION).toContain(`<${tag} `);
    }
  });
});
