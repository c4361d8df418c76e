// A file larger than what the run tree may still hold in memory is refused before a byte of it is read, by every
// reader: the aip.file loaders, spans and hashes, copies and appends (which read the old content), list_load (all
// its files together), `require`. A 2 GiB sparse file costs no disk, and reading it would take GiBs of memory.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterAll as after, beforeAll, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';
import { afterAll, arena, type Arena } from './helpers.ts';

const MIB = 1024 * 1024;
let a: Arena;
beforeAll(() => {
  a = arena();
  const big = nodePath.join(a.ws, 'big.bin');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 2048 * MIB);
  fs.mkdirSync(nodePath.join(a.ws, 'lua'));
  fs.writeFileSync(nodePath.join(a.ws, 'lua', 'huge.lua'), '');
  fs.truncateSync(nodePath.join(a.ws, 'lua', 'huge.lua'), 2048 * MIB);
});
after(() => a.cleanup());

/** What `expr` gives (its error caught by pcall), run under a memory cap. */
function attempt(expr: string, memoryMax = 512 * MIB): string {
  a.write('reader.aip', afterAll(`local ok, err = pcall(function() return ${expr} end)\nreturn tostring(ok) .. " " .. tostring(err)`));
  const out = new Simulator({ workspaceDir: a.ws, memoryMax }).run({ name: 'reader', baseDir: a.ws }).afterAll;
  return String(out);
}

const refused = (what: string, mib: number) =>
  new RegExp(`^false .*memory limit exceeded: ${what}: ${mib} MiB, more than the run may still bring into memory \\(\\d+ MiB\\); nothing was read$`);

describe('a file larger than the memory cap', () => {
  const READERS = [
    'aip.file.load("big.bin")',
    'aip.file.read_span("big.bin", 0, 10)',
    'aip.file.line_spans("big.bin")',
    'aip.file.csv_row_spans("big.bin")',
    'aip.file.hash_sha256("big.bin")',
    'aip.file.load_json("big.bin")',
    'aip.file.load_ndjson("big.bin")',
    'aip.file.load_toml("big.bin")',
    'aip.file.load_yaml("big.bin")',
    'aip.file.load_csv("big.bin")',
    'aip.file.load_csv_headers("big.bin")',
    'aip.file.load_md_sections("big.bin")',
    'aip.file.load_md_split_first("big.bin")',
    'aip.file.copy("big.bin", "copy.bin")',
    'aip.file.append("big.bin", "x")',
  ];
  it.each(READERS)('%s is a clear Lua error, raised before reading', (expr) => {
    const rss = process.memoryUsage().rss;
    expect(attempt(expr)).toMatch(refused(`'${nodePath.join(a.ws, 'big.bin')}'`, 2048));
    // nothing of the 2 GiB came into memory
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * MIB);
  });

  it('aip.file.list_load refuses before reading any of the files it lists', () => {
    expect(attempt('aip.file.list_load({"*.bin"})')).toMatch(refused('aip.file.list_load: the 1 file listed', 2048));
  });

  it('require of a module that large fails without reading it', () => {
    const rss = process.memoryUsage().rss;
    let outcome: string;
    try {
      outcome = attempt('require("huge")');
    } catch (err) {
      // lua54 fails the run with the refusal rather than handing it to pcall
      outcome = (err as Error).message;
    }
    expect(outcome).toMatch(/^false |memory limit exceeded: '.*huge\.lua': 2048 MiB/);
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * MIB);
  });
});

describe('the cap is what the run tree may still hold', () => {
  it('files each under the cap load one by one; list_load refuses them together when their sum is over it', () => {
    for (const n of [1, 2, 3]) a.write(`part${n}.txt`, 'p'.repeat(3 * MIB));
    expect(attempt('#aip.file.load("part1.txt").content', 8 * MIB)).toBe(`true ${3 * MIB}`);
    expect(attempt('#aip.file.list_load({"part*.txt"})', 16 * MIB)).toBe('true 3');
    expect(attempt('#aip.file.list_load({"part*.txt"})', 8 * MIB)).toMatch(refused('aip.file.list_load: the 3 files listed', 9));
  });
});
