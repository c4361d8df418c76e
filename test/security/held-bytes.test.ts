// Files a run saves are held in memory until it ends: their bytes count against the run tree's memory cap, so
// saving, copying or appending big files in a loop ends on the memory limit instead of filling the host's memory.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';
import { afterAll, arena, type Arena } from './helpers.ts';

let a: Arena;
beforeEach(() => {
  a = arena();
});
afterEach(() => a.cleanup());

const MIB = 1024 * 1024;
const BIG = 'local big = string.rep("x", 16 * 1024 * 1024)\n';

function attack(code: string, memoryMax = 128 * MIB, budget?: number): string {
  a.write('attacker.aip', afterAll(code));
  try {
    const out = new Simulator({ workspaceDir: a.ws, memoryMax, ...(budget ? { budget } : {}) }).run({ name: 'attacker', baseDir: a.ws }).afterAll;
    return `completed: ${String(out)}`;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('bytes held by the overlay count against the memory cap', () => {
  it('aip.file.save of 16 MiB x150 ends on the memory limit', () => {
    const r = attack(`${BIG}for i = 1, 150 do aip.file.save("big" .. i .. ".txt", big) end return "done"`);
    expect(r).toMatch(/memory limit exceeded/);
  });

  it('aip.file.copy x200 ends on the memory limit', () => {
    const r = attack(`${BIG}aip.file.save("src.txt", big) big = nil\nfor i = 1, 200 do aip.file.copy("src.txt", "copy" .. i .. ".txt") end return "done"`);
    expect(r).toMatch(/memory limit exceeded/);
  });

  it('aip.file.append growing one file ends on the memory limit', () => {
    const r = attack(`local chunk = string.rep("y", 1024 * 1024)\nfor i = 1, 100 do aip.file.append("grow.txt", chunk) end return "done"`, 24 * MIB);
    expect(r).toMatch(/memory limit exceeded/);
  });

  it('a pcall around each save does not keep the run going: the tree stops', () => {
    const r = attack(`${BIG}local n = 0 for i = 1, 150 do if pcall(aip.file.save, "big" .. i .. ".txt", big) then n = n + 1 end end return "done " .. n`);
    expect(r).toMatch(/memory limit exceeded/);
    expect(r).not.toMatch(/^completed/);
  });

  it('saving over the same file, or deleting, gives the bytes back', () => {
    // 60 saves of 16 MiB hand ~1 GB to the host, charged by size: the budget is raised so that only the bytes held count
    const r = attack(`${BIG}for i = 1, 40 do aip.file.save("same.txt", big) end\nfor i = 1, 20 do aip.file.save("t.txt", big) aip.file.delete("t.txt") end return "done"`, 128 * MIB, 1_000_000_000);
    expect(r).toBe('completed: done');
  });
});
