// Attacks 4-7 (data loss) and the deadline: --write is all-or-nothing and atomic, locked per workspace; runs stop.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommitError, writeChanges } from '../../src/runtime/commit.ts';
import { LOCK_NAME, lockWorkspace, WorkspaceLockedError } from '../../src/runtime/workspace-lock.ts';
import { simulateInWorker } from '../../src/cli/simulate.ts';
import { runCli } from '../helpers/cli.ts';
import { afterAll, arena, type Arena } from './helpers.ts';
import { HANG_GUARD_MS, HANG_TEST_MS } from '../helpers/hang-guard.ts';

vi.setConfig({ testTimeout: HANG_TEST_MS });

let a: Arena;
beforeEach(() => {
  a = arena();
  a.write('keep.txt', 'old');
});
afterEach(() => a.cleanup());

const save = (path: string, text = 'new') => `aip.file.save(${JSON.stringify(path)}, ${JSON.stringify(text)})`;

describe('one change that cannot be written', () => {
  it('a 300-character name between two valid changes: nothing is written, the error names it', async () => {
    a.write('w.aip', afterAll([save('keep.txt'), save(`${'n'.repeat(300)}.txt`), save('last.txt')].join('\n')));
    const before = a.disk();
    const r = await runCli(['run-agent', 'w.aip', '--write', '--json'], a.ws);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout);
    expect(json.error).toMatch(/cannot be written, so nothing was written:\n {2}n{300}\.txt: the name 'n+\.\.\.' is 304 bytes long \(at most 216\)/);
    expect(r.stderr).not.toMatch(/ENAMETOOLONG|\n\s+at /);
    expect(a.disk()).toEqual(before);
  });

  it('a dangling symlink in the way is a clear failed change, not ENOENT', async () => {
    fs.symlinkSync('missing-dir', nodePath.join(a.ws, 'dangling'));
    a.write('w.aip', afterAll([save('keep.txt'), save('dangling/x.txt')].join('\n')));
    const before = a.disk();
    const r = await runCli(['run-agent', 'w.aip', '--write'], a.ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/dangling\/x\.txt: 'dangling' is a dangling symlink/);
    expect(r.stderr).not.toMatch(/ENOENT/);
    expect(a.disk()).toEqual(before);
  });
});

describe('planting the pack the next run would use', () => {
  it('a write under .aipack/pack/ is refused at commit, and nothing else is written', async () => {
    a.write('w.aip', afterAll([save('keep.txt'), save('.aipack/pack/custom/pro/coder/main.aip', '# planted')].join('\n')));
    const before = a.disk();
    const r = await runCli(['run-agent', 'w.aip', '--write'], a.ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\.aipack\/pack\/custom\/pro\/coder\/main\.aip: inside \.aipack\/pack\/, which a simulated run does not write/);
    expect(a.disk()).toEqual(before);
  });
});

describe('atomic replacement', () => {
  it('writes each file through a temp file renamed over it: no temp file is left, modes are kept', () => {
    const file = a.write('x.sh', 'old');
    fs.chmodSync(file, 0o755);
    writeChanges(a.ws, [[file, new TextEncoder().encode('new')], [nodePath.join(a.ws, 'keep.txt'), null]]);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).mode & 0o777).toBe(0o755);
    expect(fs.existsSync(nodePath.join(a.ws, 'keep.txt'))).toBe(false);
    expect(fs.readdirSync(a.ws).filter((n) => n.includes('coder-subagents-tmp'))).toEqual([]);
  });

  it('writes through a symlink whose target is inside the workspace, and refuses one leading out', () => {
    a.write('target.txt', 'old');
    fs.symlinkSync('target.txt', nodePath.join(a.ws, 'alias.txt'));
    fs.symlinkSync(a.secret, nodePath.join(a.ws, 'out.txt'));
    expect(() => writeChanges(a.ws, [[nodePath.join(a.ws, 'out.txt'), new Uint8Array([1])]])).toThrow(CommitError);
    writeChanges(a.ws, [[nodePath.join(a.ws, 'alias.txt'), new TextEncoder().encode('new')]]);
    expect(fs.readFileSync(nodePath.join(a.ws, 'target.txt'), 'utf8')).toBe('new');
    expect(fs.lstatSync(nodePath.join(a.ws, 'alias.txt')).isSymbolicLink()).toBe(true);
  });
});

describe('two --write runs on one workspace', () => {
  it('the second fails at once naming the holder; the lock goes when released, and a dead holder is taken over', async () => {
    const release = lockWorkspace(a.ws);
    expect(() => lockWorkspace(a.ws)).toThrow(WorkspaceLockedError);
    a.write('w.aip', afterAll(save('keep.txt')));
    const r = await runCli(['run-agent', 'w.aip', '--write'], a.ws);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`another run with --write \\(pid ${process.pid}\\) is writing this workspace`));
    expect(fs.readFileSync(nodePath.join(a.ws, 'keep.txt'), 'utf8')).toBe('old');
    release();
    // a lock left by a process that no longer exists (pid 2^22 + 1 is above Linux's pid_max default)
    fs.writeFileSync(nodePath.join(a.ws, '.aipack', LOCK_NAME), '4194305\n');
    const ok = await runCli(['run-agent', 'w.aip', '--write'], a.ws);
    expect(ok.code, ok.stderr).toBe(0);
    expect(fs.readFileSync(nodePath.join(a.ws, 'keep.txt'), 'utf8')).toBe('new');
    expect(fs.existsSync(nodePath.join(a.ws, '.aipack', LOCK_NAME))).toBe(false);
  });
});

describe('two runs taking over one stale lock at the same instant', () => {
  it('only one gets it: the slower does not delete the lock the faster has just created', () => {
    const lock = nodePath.join(a.ws, '.aipack', LOCK_NAME);
    fs.writeFileSync(lock, '4194305\n'); // a dead holder
    let second: (() => void) | undefined;
    // the first run has judged the lock stale; before it acts, the second run takes over and holds the lock
    const first = () =>
      lockWorkspace(a.ws, {
        onStale: () => {
          if (!second) second = lockWorkspace(a.ws);
        },
      });
    expect(first).toThrow(WorkspaceLockedError);
    expect(second).toBeDefined();
    expect(fs.readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    second?.();
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.existsSync(`${lock}.takeover`)).toBe(false);
  });
});

describe('the wall-clock deadline (outside the VM)', () => {
  it('stops a loop the budget does not, naming the agent and stage, and the next run still works', async () => {
    a.write('loop.aip', afterAll('while true do end'));
    a.write('ok.aip', afterAll('return 42'));
    const sim = { workspaceDir: a.ws, budget: 1e15 };
    await expect(simulateInWorker({ sim, request: { name: 'loop.aip', baseDir: a.ws } }, { timeoutMs: 1500 })).rejects.toThrow(
      /timed out after 1500 ms in loop\.aip AfterAll/,
    );
    const r = await simulateInWorker({ sim, request: { name: 'ok.aip', baseDir: a.ws } }, { timeoutMs: HANG_GUARD_MS });
    expect(r.outcome?.afterAll).toBe(42);
  });

  it('run-agent --timeout fails with exit 1 and --json still prints its object', async () => {
    a.write('loop.aip', afterAll('local t = {} while true do t[1] = (t[1] or 0) + 1 end'));
    const before = a.disk();
    const r = await runCli(['run-agent', 'loop.aip', '--timeout', '1', '--budget', '1000000000000', '--json', '--write'], a.ws);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatch(/^timed out after 1 s in loop\.aip AfterAll/);
    expect(a.disk()).toEqual(before);
  });
});
