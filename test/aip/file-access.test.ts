import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileAccess } from '../../src/aip/file-access.ts';
import { LuaError } from '../../src/engine/values.ts';
import { useFileWorkspace } from '../helpers/file-workspace.ts';

const w = useFileWorkspace();
const abs = (rel: string) => nodePath.join(w.ws, rel);

describe('fileAccess', () => {
  it('writtenPath: workspace-relative for relative input inside it, else absolute or under ~', () => {
    const a = fileAccess(w.env);
    expect(a.writtenPath('./src/x.ts', abs('src/x.ts'))).toBe('src/x.ts');
    expect(a.writtenPath(abs('src/x.ts'), abs('src/x.ts'))).toBe(abs('src/x.ts'));
    const inHome = nodePath.join(w.env.dirs.home, 'notes.md');
    expect(a.writtenPath('~/notes.md', inHome)).toBe('~/notes.md');
  });

  it('recordOf builds a FileRecord; binary bytes are not likely text; a directory or missing file raises', () => {
    const a = fileAccess(w.env);
    expect(a.recordOf('README.md', abs('README.md'), 'fn')).toMatchObject({
      _type: 'FileRecord',
      path: 'README.md',
      content: '# Readme\n',
      size: 9,
      is_likely_text: true,
    });
    w.env.vfs.writeFile(abs('bin.md'), new Uint8Array([65, 0, 66]));
    expect(a.recordOf('bin.md', abs('bin.md'), 'fn').is_likely_text).toBe(false);
    expect(() => a.recordOf('src', abs('src'), 'fn')).toThrow(`fn - Fail to read file 'src' (resolved to '${abs('src')}'): it is a directory`);
    expect(() => a.recordOf('no.md', abs('no.md'), 'fn')).toThrow(/: file not found$/);
  });

  it('bytesOf reads a file that must exist, the caller wording the failure', () => {
    const a = fileAccess(w.env);
    const fail = (why: string) => `cannot: ${why}`;
    expect(new TextDecoder().decode(a.bytesOf(abs('README.md'), fail))).toBe('# Readme\n');
    expect(() => a.bytesOf(abs('src'), fail)).toThrow(new LuaError('cannot: it is a directory'));
    expect(() => a.bytesOf(abs('no.md'), fail)).toThrow(new LuaError(`cannot: file not found (resolved to '${abs('no.md')}')`));
  });

  it('infoOf gives a FileInfo without content', () => {
    const info = fileAccess(w.env).infoOf('README.md', abs('README.md'));
    expect(info).toMatchObject({ _type: 'FileInfo', path: 'README.md', name: 'README.md', size: 9 });
    expect(info).not.toHaveProperty('content');
  });

  it('guarded turns plain errors into Lua errors naming the function and path, and lets Lua errors through', () => {
    const a = fileAccess(w.env);
    expect(() => a.guarded('aip.file.x', 'p.txt', () => { throw new Error('disk full'); })).toThrow(
      new LuaError("aip.file.x - Fail for 'p.txt'. Cause: disk full"),
    );
    const own = new LuaError('as is');
    expect(() => a.guarded('aip.file.x', 'p.txt', () => { throw own; })).toThrow(own);
    expect(a.guarded('aip.file.x', 'p.txt', () => 7)).toBe(7);
  });

  it('baseDirOf resolves the option, and is undefined without one', () => {
    const a = fileAccess(w.env);
    expect(a.baseDirOf(undefined, 'fn')).toBeUndefined();
    expect(a.baseDirOf(null, 'fn')).toBeUndefined();
    expect(a.baseDirOf('src/lib', 'fn')).toBe(abs('src/lib'));
  });

  it('appendText appends to the overlay, creates a missing file, traces, and keeps the write check', () => {
    const a = fileAccess(w.env);
    a.appendText('fn', 'README.md', abs('README.md'), 'more\n');
    a.appendText('fn', 'new.txt', abs('new.txt'), 'first');
    expect(w.env.vfs.readFile(abs('README.md'))).toBe('# Readme\nmore\n');
    expect(w.env.vfs.readFile(abs('new.txt'))).toBe('first');
    expect(w.env.trace.of('file').map((e) => [e.op, e.path])).toEqual([['append', 'README.md'], ['append', 'new.txt']]);
    expect(() => a.appendText('fn', '../x', nodePath.join(w.root, 'x'), 'no')).toThrow(/Save file protection/);
    expect(w.diskState()['README.md']).toBe('# Readme\n');
  });

  it('appended is the current bytes followed by the text, without writing', () => {
    const a = fileAccess(w.env);
    expect(new TextDecoder().decode(a.appended(abs('README.md'), 'x'))).toBe('# Readme\nx');
    expect(new TextDecoder().decode(a.appended(abs('none.txt'), 'x'))).toBe('x');
    expect(w.env.vfs.readFile(abs('none.txt'))).toBeUndefined();
  });
});
