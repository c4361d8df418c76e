// Every entry point that touches the host disk (install, build, --write, the harness's copies, the simulated home)
// with symlinked files and folders, `..` and failing writes: nothing outside its target is read or changed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installPack, InstallRefused } from '../../src/pack/archive.ts';
import { PROJECT_ROOT, syncDir } from '../../src/pack/build.ts';
import { prepareAgent } from '../../src/harness/agent-discovery.ts';
import { CommitError, writeChanges, type Change } from '../../src/runtime/commit.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { LOCK_NAME, lockWorkspace, WorkspaceLockedError } from '../../src/runtime/workspace-lock.ts';
import { injectWriteFault } from '../../src/support/host-fs.ts';
import { cliArgs, runCli } from '../helpers/cli.ts';
import { afterAll, arena, diskState, SECRET, type Arena } from './helpers.ts';

let a: Arena;
beforeEach(() => {
  a = arena();
});
afterEach(() => {
  injectWriteFault(undefined);
  a.cleanup();
});

const packDir = () => nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'pro', 'coder');
const outside = () => diskState(nodePath.join(a.root, 'victim'));

/** A folder outside the workspace holding one file: what an attack must leave as it is. */
function victim(): string {
  const dir = nodePath.join(a.root, 'victim');
  fs.mkdirSync(dir);
  fs.writeFileSync(nodePath.join(dir, 'precious.txt'), 'precious');
  return dir;
}

describe('install never touches a file outside its target', () => {
  it('a symlinked folder inside the installed pack (same version, no --force) is replaced, not emptied', () => {
    installPack(PROJECT_ROOT, a.ws);
    const dir = victim();
    fs.symlinkSync(dir, nodePath.join(packDir(), 'cache'));
    const r = installPack(PROJECT_ROOT, a.ws);
    expect(r.removed).toContain('cache');
    expect(outside()).toEqual({ 'precious.txt': 'precious' });
    expect(fs.existsSync(nodePath.join(packDir(), 'cache'))).toBe(false);
  });

  it('a symlinked main.aip gets the pack content as a file of its own; its target is not written', () => {
    installPack(PROJECT_ROOT, a.ws);
    const dir = victim();
    const main = nodePath.join(packDir(), 'main.aip');
    fs.rmSync(main);
    fs.symlinkSync(nodePath.join(dir, 'precious.txt'), main);
    const r = installPack(PROJECT_ROOT, a.ws);
    expect(r.written).toContain('main.aip');
    expect(outside()).toEqual({ 'precious.txt': 'precious' });
    expect(fs.lstatSync(main).isFile()).toBe(true);
  });

  it('a symlinked lua folder and a symlinked sub-folder of lua are replaced by real ones', () => {
    installPack(PROJECT_ROOT, a.ws);
    const dir = victim();
    fs.rmSync(nodePath.join(packDir(), 'lua'), { recursive: true });
    fs.symlinkSync(dir, nodePath.join(packDir(), 'lua'));
    installPack(PROJECT_ROOT, a.ws);
    expect(outside()).toEqual({ 'precious.txt': 'precious' });
    expect(fs.lstatSync(nodePath.join(packDir(), 'lua')).isDirectory()).toBe(true);
  });

  it('a symlink on the way to the pack folder (custom/pro -> elsewhere) is refused with a clear message', () => {
    const dir = victim();
    fs.mkdirSync(nodePath.join(a.ws, '.aipack', 'pack', 'custom'), { recursive: true });
    fs.symlinkSync(dir, nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'pro'));
    expect(() => installPack(PROJECT_ROOT, a.ws, { force: true })).toThrow(InstallRefused);
    expect(() => installPack(PROJECT_ROOT, a.ws, { force: true })).toThrow(/custom\/pro is a symlink; install does not write through it/);
    expect(outside()).toEqual({ 'precious.txt': 'precious' });
  });

  it('a pack.toml that is a symlink to a host file is not read (its text never shows)', () => {
    fs.mkdirSync(packDir(), { recursive: true });
    fs.writeFileSync(nodePath.join(a.root, 'creds.toml'), `[pack]\nversion = "${SECRET}"\n`);
    fs.symlinkSync(nodePath.join(a.root, 'creds.toml'), nodePath.join(packDir(), 'pack.toml'));
    expect(() => installPack(PROJECT_ROOT, a.ws)).toThrow(/holds no readable pack\.toml/);
    let message = '';
    try {
      installPack(PROJECT_ROOT, a.ws);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toContain(SECRET);
  });

  it('install --workspace /proc ends at once with an error instead of hanging', () => {
    const r = spawnSync(process.execPath, cliArgs(['install', '--workspace', '/proc']), { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/\/proc\/\.aipack/);
  });
});

describe('build keeps its pack folder its own', () => {
  it('a symlinked folder inside pack/ is removed as a link, the folder it points to keeps its files', () => {
    const out = nodePath.join(a.ws, 'pack');
    fs.mkdirSync(out);
    const dir = victim();
    fs.symlinkSync(dir, nodePath.join(out, 'templates'));
    fs.symlinkSync(nodePath.join(dir, 'precious.txt'), nodePath.join(out, 'README.md'));
    const r = syncDir(out, new Map([['README.md', 'readme'], ['templates/a.md', 'A']]));
    expect(r.written).toEqual(['README.md', 'templates/a.md']);
    expect(outside()).toEqual({ 'precious.txt': 'precious' });
    expect(diskState(out)).toEqual({ 'README.md': 'readme', 'templates/a.md': 'A' });
  });
});

describe('the harness copies only the project', () => {
  it("a support path climbing out with '..' is refused, the host file is not copied", () => {
    a.write('agents/sub.aip', afterAll('return 1'));
    expect(() => prepareAgent('sub.aip', nodePath.join(a.ws, 'agents'), ['../../secret.txt'])).toThrow(/support\[1\]: '\.\.\/\.\.\/secret\.txt' leads to .*outside the project/);
    expect(() => prepareAgent('agents/sub.aip', a.ws, ['../../../../../../../etc/passwd'])).toThrow(/support\[1\]: .*outside the project/);
  });

  it('a custom pack folder that is a symlink to / does not become a read root', () => {
    a.write('agents/sub.aip', afterAll('return 1'));
    fs.mkdirSync(nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'evil'), { recursive: true });
    fs.symlinkSync('/', nodePath.join(a.ws, '.aipack', 'pack', 'custom', 'evil', 'all'));
    expect(() => prepareAgent('evil@all/etc/passwd', a.ws)).toThrow(/resolves to '\/' through a symlink; the harness reads packs only from real folders/);
  });
});

describe('the simulated home is never read from the disk', () => {
  it('a sibling <workspace>.sim-home shipped as a symlink to the host opens nothing', () => {
    fs.symlinkSync(a.root, `${a.ws}.sim-home`);
    a.write('x.aip', afterAll(`local ok, r = pcall(aip.file.load, "~/secret.txt") local ok2, r2 = pcall(aip.file.load, "${a.secret}") return tostring(r and r.content) .. "|" .. tostring(ok2) .. tostring(r2)`));
    const out = new Simulator({ workspaceDir: a.ws }).run({ name: 'x', baseDir: a.ws }).afterAll as string;
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/false.*Read protection/);
  });

  it('a real sibling folder of that name is not read either', () => {
    fs.mkdirSync(`${a.ws}.sim-home`);
    fs.writeFileSync(`${a.ws}.sim-home/note.txt`, SECRET);
    a.write('x.aip', afterAll('local f = aip.file.load("~/note.txt") return f and f.content or "none"'));
    let out: unknown;
    try {
      out = new Simulator({ workspaceDir: a.ws }).run({ name: 'x', baseDir: a.ws }).afterAll;
    } catch (err) {
      out = (err as Error).message;
    }
    expect(String(out)).not.toContain(SECRET);
  });
});

describe('--write is all or nothing, whatever write fails', () => {
  const files = ['a.txt', 'sub/b.txt', 'new/deep/c.txt', 'd.txt', 'gone.txt'];
  const setup = () => {
    a.write('a.txt', 'old-a');
    a.write('sub/b.txt', 'old-b');
    a.write('d.txt', 'old-d');
    a.write('gone.txt', 'old-gone');
    fs.chmodSync(nodePath.join(a.ws, 'd.txt'), 0o640);
  };
  const changes = (): Change[] => [
    [nodePath.join(a.ws, 'a.txt'), Buffer.from('new-a')],
    [nodePath.join(a.ws, 'sub/b.txt'), Buffer.from('new-b')],
    [nodePath.join(a.ws, 'new/deep/c.txt'), Buffer.from('new-c')],
    [nodePath.join(a.ws, 'd.txt'), Buffer.from('new-d')],
    [nodePath.join(a.ws, 'gone.txt'), null],
  ];

  for (const code of ['ENOSPC', 'EACCES'] as const) {
    it(`${code} at every write position leaves every file old, no temp file, and says nothing was written`, () => {
      setup();
      const before = a.disk();
      injectWriteFault(undefined);
      writeChanges(a.ws, changes());
      const total = injectWriteFault(undefined);
      expect(total).toBeGreaterThan(files.length);
      // back to the old state for the series
      fs.rmSync(a.ws, { recursive: true });
      fs.mkdirSync(nodePath.join(a.ws, '.aipack'), { recursive: true });
      setup();
      for (let at = 1; at <= total; at++) {
        injectWriteFault({ at, code });
        let err: unknown;
        try {
          writeChanges(a.ws, changes());
        } catch (e) {
          err = e;
        }
        expect(err, `fault at write ${at}`).toBeInstanceOf(CommitError);
        expect((err as Error).message).toMatch(/nothing was written/);
        expect((err as Error).message).toMatch(code === 'ENOSPC' ? /no space left/ : /permission denied/);
        expect(a.disk(), `fault at write ${at}`).toEqual(before);
        expect(fs.existsSync(nodePath.join(a.ws, 'new')), `fault at write ${at}`).toBe(false);
      }
      injectWriteFault(undefined);
      writeChanges(a.ws, changes());
      expect(diskState(a.ws)).toEqual({ 'a.txt': 'new-a', 'sub/b.txt': 'new-b', 'new/deep/c.txt': 'new-c', 'd.txt': 'new-d' });
      expect(fs.statSync(nodePath.join(a.ws, 'd.txt')).mode & 0o777).toBe(0o640);
    });
  }

  it('the CLI report of a failed write says nothing was written, not "use --write"', async () => {
    a.write('w.aip', afterAll('aip.file.save("one.txt", "1") aip.file.save("two.txt", "2")'));
    const before = a.disk();
    injectWriteFault({ at: 2, code: 'ENOSPC' });
    const r = await runCli(['run-agent', 'w.aip', '--write'], a.ws);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/use --write/);
    expect(r.stdout + r.stderr).toMatch(/nothing was written/);
    expect(a.disk()).toEqual(before);
  });
});

describe('the write lock belongs to the tool', () => {
  it('a sub-agent cannot write, delete or rename the lock (or a temp file name of the tool)', () => {
    const lock = nodePath.join(a.ws, '.aipack', LOCK_NAME);
    fs.writeFileSync(lock, '999999999\n');
    for (const change of [
      [lock, Buffer.from('1')],
      [lock, null],
      [`${lock}.takeover`, Buffer.from('1')],
      [nodePath.join(a.ws, '.x.new.coder-subagents-tmp-1-1'), Buffer.from('1')],
    ] as Change[]) {
      expect(() => writeChanges(a.ws, [change])).toThrow(/a file of the tool itself/);
    }
    expect(fs.readFileSync(lock, 'utf8')).toBe('999999999\n');
  });

  it('a lock held by a zombie process is taken over', async () => {
    // the shell forks a child that waits for a line, then becomes `sleep`, which never reaps: the line is sent
    // only once the shell is gone, so the child ends unreaped (a zombie) however the processes are scheduled
    const holder = spawn('sh', ['-c', 'exec 3<&0; (read _ <&3) & echo $!; exec sleep 60'], { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const pid = Number((await new Promise<string>((res) => holder.stdout.once('data', (d) => res(String(d))))).trim());
      const tick = () => new Promise((r) => setImmediate(r));
      while (fs.readFileSync(`/proc/${holder.pid}/comm`, 'utf8').trim() !== 'sleep') await tick();
      holder.stdin.write('go\n');
      const state = () => {
        const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        return s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3);
      };
      while (state() !== 'Z') await tick();
      expect(() => process.kill(pid, 0)).not.toThrow(); // what fooled the old check
      fs.writeFileSync(nodePath.join(a.ws, '.aipack', LOCK_NAME), `${pid}\n`);
      const release = lockWorkspace(a.ws);
      expect(fs.readFileSync(nodePath.join(a.ws, '.aipack', LOCK_NAME), 'utf8')).toBe(`${process.pid}\n`);
      release();
      // a live holder still wins
      fs.writeFileSync(nodePath.join(a.ws, '.aipack', LOCK_NAME), `${holder.pid}\n`);
      expect(() => lockWorkspace(a.ws)).toThrow(WorkspaceLockedError);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('write protections compare real paths', () => {
  it('a symlink inside the workspace leading into .aipack/pack does not open it', () => {
    fs.mkdirSync(nodePath.join(a.ws, '.aipack', 'pack', 'custom'), { recursive: true });
    fs.symlinkSync(nodePath.join(a.ws, '.aipack'), nodePath.join(a.ws, 'alias'));
    const before = a.disk();
    expect(() => writeChanges(a.ws, [[nodePath.join(a.ws, 'alias', 'pack', 'custom', 'planted.aip'), Buffer.from('x')]], [], [nodePath.join(a.ws, '.aipack', 'pack')])).toThrow(
      /alias\/pack\/custom\/planted\.aip: inside \.aipack\/pack\/, which a simulated run does not write/,
    );
    expect(a.disk()).toEqual(before);
  });
});
