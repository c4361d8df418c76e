import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../src/support/host-process.ts';

describe('processAlive', () => {
  it('is true for a running process and false for one that has ended or a pid that cannot be one', () => {
    expect(processAlive(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    expect(ended).toBeGreaterThan(0);
    expect(processAlive(ended!)).toBe(false);
    expect(processAlive(0)).toBe(false);
    expect(processAlive(-1)).toBe(false);
    expect(processAlive(1.5)).toBe(false);
  });
});
