// Writes dist/engine/fengari-chunks.json: fengari bytecode of the simulator's own Lua (the sandbox, the prelude,
// the put-back, the pack's lua/ modules, the contract driver's stages as the simulator runs them), which fengari would otherwise parse in JavaScript at the start of every
// run (see src/engine/fengari-chunks.ts). Runs after tsc, on the compiled modules.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

const root = nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url)));
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { compileBundle } = await dist('engine/fengari-chunks.js');
const { SANDBOX_LUA } = await dist('engine/sandbox.js');
const { PRISTINE_LUA } = await dist('engine/state-put-back.js');
const { PRELUDE } = await dist('aip/prelude.js');
const { DRIVER_AIP, DRIVER_FILE } = await dist('harness/driver.js');
const { parseAgentDoc, stageChunks } = await dist('runtime/agent-doc.js');

const packLua = nodePath.join(root, 'pack', 'lua');
const modules = readdirSync(packLua)
  .filter((f) => f.endsWith('.lua'))
  .sort()
  .map((f) => ({ name: `pack/lua/${f}`, code: new Uint8Array(readFileSync(nodePath.join(packLua, f))) }));
const bundle = compileBundle([
  { name: 'sandbox', code: SANDBOX_LUA },
  { name: 'prelude', code: PRELUDE },
  { name: 'pristine', code: PRISTINE_LUA },
  ...modules,
  ...stageChunks(parseAgentDoc(DRIVER_AIP, DRIVER_FILE)).map((code, i) => ({ name: `${DRIVER_FILE} stage ${i + 1}`, code })),
]);
writeFileSync(nodePath.join(root, 'dist', 'engine', 'fengari-chunks.json'), JSON.stringify(bundle));
console.log(`precompiled ${Object.keys(bundle.chunks).length} fengari chunks`);
