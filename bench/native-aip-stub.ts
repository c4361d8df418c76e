/**
 * The native floor of the benches: Lua that, on native lua5.4, does per aip.agent.run call what AIPack does in Lua
 * terms: read the .aip and take its code block, set up a fresh environment (new library tables as a fresh state
 * opens them, an `aip` table of as many functions as the simulated version has, CTX, then the stage scope over a
 * shallow copy of the globals), compile the chunk, and deep-copy the input in and the result out.
 * Defines `agent_run(name, opts)` (also reachable as `aip.agent.run` inside the agents) for the script that follows.
 */
import { readFileSync } from 'node:fs';
import { aipFunctionsAt, DEFAULT_AIPACK_VERSION } from '../src/aip/catalog.ts';

const STUB = readFileSync(new URL('./native-aip-stub.lua', import.meta.url), 'utf8');

/** The stub's Lua for workspace `ws`: its locals (agent_run among them) stay in scope for the script after it. */
export function nativeAipStub(ws: string): string {
  return `local WS, AIP_FUNCTIONS = ${JSON.stringify(ws)}, ${aipFunctionsAt(DEFAULT_AIPACK_VERSION).length}\n${STUB}`;
}
