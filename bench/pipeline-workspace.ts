/**
 * Workloads of many distinct sub-agents, shared by pipeline.bench.ts:
 * - the pipeline chain: COUNT trivial sub-agent files (`sa/a001.aip` ...), each counting itself in
 *   `coder_params.calls`, run at `pre` by the pack's own stage runner (`utils_sub_agent`, from pack/lua) under a
 *   driver agent (pipeline-driver.lua) that repeats the stage ROUNDS times; the native floor runs the same driver
 *   and the same pack Lua on native lua5.4 over the pure-Lua `aip` of native-aip-stub.ts;
 * - a suite of many agents: cases of fixtures/sub-agents spread over folders that each hold their own copies of the
 *   agents, so that each folder's agents are files of their own.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { nativeAipStub } from './native-aip-stub.ts';

const HERE = nodePath.dirname(new URL(import.meta.url).pathname);
const AGENT = '# Output\n\n```lua\nlocal p = input.coder_params\np.calls = (p.calls or 0) + 1\nreturn { coder_params = p }\n```\n';

/** The driver agent (relative to the workspace) running the stage over `n` sub-agents `rounds` times. */
export const driverName = (n: number, rounds: number) => `driver/pipe-${n}-${rounds}.aip`;

/** A workspace with `count` sub-agents, one driver agent per [n, rounds], the pack's Lua and the native runner. */
export function pipelineWorkspace(root: string, count: number, runs: [number, number][]): string {
  const ws = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-pipeline-'));
  for (const dir of ['.aipack', 'sa', 'driver/lua']) mkdirSync(nodePath.join(ws, dir), { recursive: true });
  for (let i = 1; i <= count; i++) writeFileSync(nodePath.join(ws, `sa/a${String(i).padStart(3, '0')}.aip`), AGENT);
  const lua = nodePath.join(root, 'pack', 'lua');
  for (const f of readdirSync(lua)) copyFileSync(nodePath.join(lua, f), nodePath.join(ws, 'driver/lua', f));
  const driver = readFileSync(nodePath.join(HERE, 'pipeline-driver.lua'), 'utf8');
  for (const [n, rounds] of runs) {
    const code = `local N, ROUNDS = ${n}, ${rounds}\n${driver}`;
    writeFileSync(nodePath.join(ws, driverName(n, rounds)), `# After All\n\n\`\`\`lua\n${code}\`\`\`\n`);
  }
  // the native floor: `lua5.4 driver/native.lua N ROUNDS` (pipeline-native.lua after the aip stub)
  writeFileSync(nodePath.join(ws, 'driver/pipeline-driver.lua'), driver);
  writeFileSync(nodePath.join(ws, 'driver/native.lua'), `${nativeAipStub(ws)}\n${readFileSync(nodePath.join(HERE, 'pipeline-native.lua'), 'utf8')}`);
  return ws;
}

export const SUITE_FOLDERS = 12;

/** One fixture contract file split in its head (agent, defaults) and its cases. */
function fixtureCases(src: string): { file: string; head: string; cases: string[] }[] {
  return readdirSync(src)
    .filter((f) => f.endsWith('.contract.toml'))
    .sort()
    .map((file) => {
      const [head, ...cases] = readFileSync(nodePath.join(src, file), 'utf8').split(/(?=^\[\[case\]\]$)/m);
      return { file, head: head as string, cases };
    });
}

/**
 * `n` contract cases of fixtures/sub-agents spread over SUITE_FOLDERS folders, each holding its own copies of the
 * agents and the contract files its cases come from: case k goes to folder k mod SUITE_FOLDERS and is the fixture's
 * case k mod (all fixture cases), renamed to stay unique.
 */
export function manyAgentSuite(root: string, n: number): string {
  const dir = mkdtempSync(nodePath.join(os.tmpdir(), 'bench-many-agents-'));
  const src = nodePath.join(root, 'fixtures', 'sub-agents');
  const files = fixtureCases(src);
  const all = files.flatMap((f) => f.cases.map((text) => ({ file: f.file, text })));
  const byFolder = Array.from({ length: SUITE_FOLDERS }, () => new Map<string, string[]>());
  for (let k = 0; k < n; k++) {
    const c = all[k % all.length] as { file: string; text: string };
    const folder = byFolder[k % SUITE_FOLDERS] as Map<string, string[]>;
    const renamed = c.text.replace(/^name = "(.*)"$/m, `name = "$1 #${k + 1}"`);
    folder.set(c.file, [...(folder.get(c.file) ?? []), renamed]);
  }
  byFolder.forEach((folder, i) => {
    if (folder.size === 0) return;
    const out = nodePath.join(dir, `team-${String(i + 1).padStart(2, '0')}`);
    mkdirSync(out);
    for (const f of readdirSync(src)) if (f.endsWith('.aip')) copyFileSync(nodePath.join(src, f), nodePath.join(out, f));
    for (const [file, cases] of folder) {
      const head = (files.find((f) => f.file === file) as { head: string }).head;
      writeFileSync(nodePath.join(out, file), head + cases.join('\n'));
    }
  });
  return dir;
}
