import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';
import { withBaseLayer } from '../../src/runtime/base-vfs.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { runLua } from '../helpers/lua.ts';

// AIPack's check_access_write lets agents save under `.aipack-base`; the simulator does too, in memory only.
const SAVE_AND_READ_BACK = `
local a = aip.file.save("acme@tool$base/state.json", "{\\"n\\": 1}")
aip.file.save("~/.aipack-base/notes.txt", "hi")
aip.file.append("acme@tool/log.txt", "one")
-- the second append grows the file the base layer holds, in place
aip.file.append("acme@tool/log.txt", "two")
return {
  state = aip.file.load_json("acme@tool$base/state.json").n,
  note = aip.file.load("~/.aipack-base/notes.txt").content,
  log = aip.file.load("acme@tool/log.txt").content,
  listed = #aip.file.list("**/*.*", { base_dir = CTX.BASE_AIPACK_DIR }),
  path = a.path,
}`;

const tmpDirs: string[] = [];
afterEach(() => {
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A real base dir on disk with one installed pack, as a user's ~/.aipack-base. */
function realBase(under?: string): string {
  const root = under ?? fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-base-'));
  if (!under) tmpDirs.push(root);
  const base = nodePath.join(root, 'my-base');
  fs.mkdirSync(nodePath.join(base, 'pack', 'installed', 'acme', 'tool'), { recursive: true });
  fs.writeFileSync(nodePath.join(base, 'pack', 'installed', 'acme', 'tool', 'main.aip'), '# After All\n\n```lua\nreturn 1\n```\n');
  return base;
}

const listTree = (dir: string): string[] => fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('writes to the AIPack base dir (--aipack-base)', () => {
  it('are allowed as in AIPack, read back within the run, and never reach the base dir on disk', () => {
    const base = realBase();
    const before = listTree(base);
    const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-base-ws-'));
    tmpDirs.push(ws);
    fs.writeFileSync(nodePath.join(ws, 'a.aip'), `# After All\n\n\`\`\`lua\n${SAVE_AND_READ_BACK}\n\`\`\`\n`);
    const sim = new Simulator({ workspaceDir: ws, aipackBase: base });
    const value = sim.run({ name: 'a.aip', baseDir: ws }).afterAll;
    expect(value).toEqual({ state: 1, note: 'hi', log: 'onetwo', listed: 4, path: `${base}/support/pack/acme/tool/state.json` });
    expect(sim.vfs.changes()).toEqual({ created: [], changed: [], deleted: [] });
    expect(sim.vfs.pending()).toEqual({ changes: [], dirs: [] });
    sim.vfs.commit();
    expect(listTree(base)).toEqual(before);
  });

  it('stay in memory even when the base dir lies inside the workspace and the caller gives its own Vfs', () => {
    const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-base-ws-'));
    tmpDirs.push(ws);
    const base = realBase(ws);
    const before = listTree(ws);
    const vfs = createOverlayVfs(ws, { files: { 'a.aip': `# After All\n\n\`\`\`lua\n${SAVE_AND_READ_BACK}\n\`\`\`\n` } });
    const sim = new Simulator({ workspaceDir: ws, vfs, aipackBase: base });
    expect(sim.run({ name: 'a.aip', baseDir: ws }).afterAll).toMatchObject({ state: 1, note: 'hi', log: 'onetwo' });
    // a.aip is a virtual baseline file, so nothing at all is pending
    expect(vfs.pending().changes).toEqual([]);
    vfs.commit();
    expect(listTree(ws)).toEqual(before);
  });

  it('deletes there fail loudly with AIPack protection error, whatever the base dir is called', () => {
    const base = '/virtual/elsewhere/my-base';
    const run = () =>
      runLua('aip.file.save("~/.aipack-base/x.txt", "x") return aip.file.delete("~/.aipack-base/x.txt")', { aipackBase: base, files: { [`${base}/keep.txt`]: 'k' } });
    expect(run).toThrow(/Delete file protection - Deleting files from the `\.aipack-base` folder is not allowed/);
  });

  it('a path naming .aipack-base outside the simulated base is refused as a sandbox rule', () => {
    expect(() => runLua('return aip.file.save("/tmp/other/.aipack-base/x.txt", "x")', { aipackBase: '/virtual/b/.aipack-base' })).toThrow(
      /Save file protection \(simulator\) - The path `\/tmp\/other\/\.aipack-base\/x\.txt` is outside the workspace/,
    );
  });
});

describe('the base layer', () => {
  it('lists its files over the disk: written ones as files, the folders they make as folders, deleted ones gone', () => {
    const base = realBase();
    const vfs = withBaseLayer(createOverlayVfs(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-base-ws-'))), base);
    tmpDirs.push(vfs.workspaceDir);
    const at = (...rel: string[]) => nodePath.join(base, ...rel);
    vfs.writeFile(at('notes.txt'), 'n');
    vfs.writeFile(at('pack', 'installed', 'acme', 'tool', 'extra.md'), 'e');
    vfs.writeFile(at('made', 'deep', 'f.txt'), 'f');
    vfs.deleteFile(at('pack', 'installed', 'acme', 'tool', 'main.aip'));
    expect(vfs.listDir(base)).toEqual([
      { name: 'made', isDir: true },
      { name: 'notes.txt', isDir: false },
      { name: 'pack', isDir: true },
    ]);
    expect(vfs.listDir(at('pack', 'installed', 'acme', 'tool'))).toEqual([{ name: 'extra.md', isDir: false }]);
    expect(vfs.listDir(at('made'))).toEqual([{ name: 'deep', isDir: true }]);
    // a file written again where one was deleted is listed again
    vfs.writeFile(at('pack', 'installed', 'acme', 'tool', 'main.aip'), 'again');
    expect(vfs.listDir(at('pack', 'installed', 'acme', 'tool')).map((e) => e.name)).toEqual(['extra.md', 'main.aip']);
  });
});
