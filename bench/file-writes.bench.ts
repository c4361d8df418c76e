/**
 * What a file write costs a run as the run writes more: an agent saves N new files (in N/10 folders), appends to
 * each, appends N lines of 100 bytes to one file (a log), then lists the N files with one glob, for N = 1,000,
 * 4,000 and 16,000 (after a warm-up run of 1,000); the time per write, and per file listed, should not grow with N.
 * `npx tsx bench/file-writes.bench.ts [--engine fengari|lua54]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { loadEngine, type EngineName } from '../src/engine/index.ts';
import { Simulator } from '../src/runtime/simulator.ts';
import { printTable } from './table.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ENGINE = (arg('--engine') ?? 'fengari') as EngineName;

const AGENT = `# Output

\`\`\`lua
local n = input
local t0 = os.clock()
for i = 1, n do aip.file.save("out/d" .. (i % (n // 10)) .. "/f" .. i .. ".txt", "x") end
local t1 = os.clock()
for i = 1, n do aip.file.append("out/d" .. (i % (n // 10)) .. "/f" .. i .. ".txt", "y") end
local t2 = os.clock()
local line = string.rep("x", 99) .. "\\n"
for i = 1, n do aip.file.append("out/log.txt", line) end
local t3 = os.clock()
local listed = #aip.file.list("out/d*/*.txt")
local t4 = os.clock()
if listed ~= n then error("listed " .. listed .. " of " .. n) end
return { save_us = (t1 - t0) * 1e6 / n, append_us = (t2 - t1) * 1e6 / n, log_us = (t3 - t2) * 1e6 / n, list_us = (t4 - t3) * 1e6 / n }
\`\`\`
`;

await loadEngine(ENGINE);
const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'cs-file-writes-'));
fs.writeFileSync(nodePath.join(ws, 'writes.aip'), AGENT);
const rows: string[][] = [];
try {
  for (const [i, n] of [1000, 1000, 4000, 16000].entries()) {
    const sim = new Simulator({ workspaceDir: ws, engine: ENGINE, timeoutMs: 0 });
    const out = sim.run({ name: 'writes.aip', inputs: [n] }).outputs?.[0] as { save_us: number; append_us: number; log_us: number; list_us: number };
    if (i > 0) rows.push([String(n), out.save_us.toFixed(0), out.append_us.toFixed(0), out.log_us.toFixed(0), out.list_us.toFixed(0)]);
  }
} finally {
  fs.rmSync(ws, { recursive: true, force: true });
}
console.log(`${ENGINE}: microseconds per write (os.clock in the run)`);
printTable(['N', 'save (a new file)', 'append (to each)', 'append (a line to one log)', 'list (a file)'], rows);
