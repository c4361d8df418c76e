import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { udiffx } from '../../src/aip/udiffx.ts';
import { FILE_CHANGES_INSTRUCTION } from '../../src/aip/support/udiffx-instruction.ts';
import { LuaMulti } from '../../src/engine/values.ts';
import { useFileWorkspace, type HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

const w = useFileWorkspace();
const read = (rel: string) => w.env.vfs.readFile(nodePath.join(w.ws, rel));

describe('aip.udiffx', () => {
  it('apply_file_changes applies each directive through the overlay and reports each one', () => {
    const u = udiffx(w.env) as HostFns;
    const answer = [
      'Here:',
      '<FILE_CHANGES>',
      '<FILE_PATCH file_path="src/main.ts">',
      '@@',
      '-console.log(1);',
      '+console.log(2);',
      '</FILE_PATCH>',
      '<FILE_NEW file_path="notes/a.md">',
      'hello',
      '</FILE_NEW>',
      '<FILE_PATCH file_path="README.md">',
      '@@',
      '-not in the file',
      '+x',
      '</FILE_PATCH>',
      '</FILE_CHANGES>',
      'Done.',
    ].join('\n');
    const [status, rest] = (u.apply_file_changes(answer, undefined, { extrude: 'content' }) as LuaMulti).values as [any, string];
    expect(status).toMatchObject({ success: false, total_count: 3, success_count: 2, fail_count: 1 });
    expect(status.items.map((i: any) => [i.file_path, i.kind, i.success])).toEqual([
      ['src/main.ts', 'Patch', true],
      ['notes/a.md', 'New', true],
      ['README.md', 'Patch', false],
    ]);
    expect(rest).toBe('Here:\n\nDone.');
    expect(read('src/main.ts')).toBe('console.log(2);\n');
    expect(read('notes/a.md')).toBe('hello\n');
    expect(read('README.md')).toBe('# Readme\n');
    expect(w.diskState()['src/main.ts']).toBe('console.log(1);\n');
  });

  it('apply_file_changes refuses a base dir outside the workspace and a bad extrude', () => {
    const u = udiffx(w.env) as HostFns;
    expect(() => u.apply_file_changes('x', '/etc')).toThrow(/Security violation, target '\/etc' is outside base dir/);
    expect(() => u.apply_file_changes('x', undefined, { extrude: 'other' })).toThrow("md_extract_blocks extrude must be = to 'content' for now");
  });

  it('before 0.8.19 a FILE_APPEND directive is not seen at all', () => {
    const old = udiffx(makeStageEnv(w.ws, { aipackVersion: '0.8.18' })) as HostFns;
    const status = old.apply_file_changes('<FILE_CHANGES>\n<FILE_APPEND file_path="README.md">\nmore\n</FILE_APPEND>\n</FILE_CHANGES>\n');
    expect(status).toMatchObject({ success: true, total_count: 0 });
  });

  it('load_files_context wraps each listed file, nil when nothing matches', () => {
    const u = udiffx(w.env) as HostFns;
    expect(u.load_files_context('src/**/*.ts')).toBe(
      '<FILE_CONTENT path="src/lib/util.ts">\nexport const x = 1;\n</FILE_CONTENT>\n\n<FILE_CONTENT path="src/main.ts">\nconsole.log(1);\n</FILE_CONTENT>\n',
    );
    expect(u.load_files_context('*.nothing')).toBeUndefined();
  });

  it('file_changes_instruction returns the simulator instruction', () => {
    expect((udiffx(w.env) as HostFns).file_changes_instruction()).toBe(FILE_CHANGES_INSTRUCTION);
  });
});
