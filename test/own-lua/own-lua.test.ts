/**
 * The project's own Lua: the chunks src/ loads (the sandbox, the put-back, the prelude, the contract's interpreter,
 * the contract driver), the pack's lua/ and the built pack/ all pass `check` (syntax for both engines, globals,
 * unknown aip.*) and compile on the engine of this vitest project (so on both engines over the two projects). The
 * benches' native-floor Lua (bench/*.lua) passes check too, but for the names its host sets before it runs.
 */
import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheckDetailed } from '../../src/check/index.ts';
import { MIN_AIPACK_VERSION } from '../../src/contract/index.ts';
import { parseAgentDoc } from '../../src/runtime/agent-doc.ts';
import { walkFiles } from '../../src/support/walk.ts';
import { runBare } from '../helpers/engine.ts';

const ROOT = nodePath.resolve(import.meta.dirname, '../..');
const rel = (abs: string) => nodePath.relative(ROOT, abs).split(nodePath.sep).join('/');
/** root-relative paths of the Lua files and agents under src/ */
const SRC_LUA = walkFiles(nodePath.join(ROOT, 'src'), () => false)
  .filter((f) => f.endsWith('.lua') || f.endsWith('.aip'))
  .map(rel)
  .sort();

/** the bench Lua files and the names each one's host sets before it runs (locals pasted above it, or globals) */
const BENCH_HOST_NAMES: Record<string, string[]> = {
  'bench/native-aip-stub.lua': ['AIP_FUNCTIONS', 'WS'],
  'bench/pipeline-driver.lua': ['N', 'ROUNDS'],
  'bench/pipeline-native.lua': ['WS', 'agent_run', 'arg'],
  'bench/runtime-native.lua': ['CHAIN', 'CHAIN_LENGTHS', 'PROMPT_MB', 'agent_run'],
};
const BENCH_LUA = walkFiles(nodePath.join(ROOT, 'bench'), () => false)
  .filter((f) => f.endsWith('.lua'))
  .map(rel)
  .sort();

/** What the engine says when compiling `code` (without running it): true, or its syntax error. */
function compiles(code: string, name: string): true | string {
  const r = runBare('local f, err = load(src, name, "t"); if not f then return err end; return true', 'serde', { src: code, name: `=${name}` });
  return r === true ? true : String(r);
}

/** Every Lua chunk of a file: a .lua file whole, an .aip file's stage blocks. */
function chunksOf(file: string): { name: string; code: string }[] {
  const text = readFileSync(nodePath.join(ROOT, file), 'utf8');
  if (file.endsWith('.lua')) return [{ name: file, code: text }];
  const doc = parseAgentDoc(text, file);
  return (['beforeAll', 'data', 'output', 'afterAll'] as const).flatMap((stage) => (doc[stage] ? [{ name: `${file} (${stage})`, code: doc[stage]!.code }] : []));
}

describe("the project's own Lua", () => {
  it('src/ holds the Lua it loads in files (the sandbox, the put-back, the prelude, the contract, the driver)', () => {
    expect(SRC_LUA).toEqual(
      expect.arrayContaining(['src/aip/prelude.lua', 'src/contract/contract-interpreter.lua', 'src/engine/pristine.lua', 'src/engine/sandbox.lua', 'src/harness/driver.aip']),
    );
  });

  it('passes check: src/ Lua and agents, lua/ and the built pack/', async () => {
    const r = await runCheckDetailed({ root: ROOT, paths: ['pack', ...SRC_LUA], minAipackVersion: MIN_AIPACK_VERSION });
    expect(r.files).toEqual(expect.arrayContaining([...SRC_LUA, 'lua/utils_sub_agent.lua', 'pack/lua/sub_agent_contract.lua', 'pack/main.aip']));
    expect(r.findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.rule}: ${f.message}`)).toEqual([]);
  });

  it("passes check: the benches' Lua, but for the names its host sets", async () => {
    expect(BENCH_LUA).toEqual(Object.keys(BENCH_HOST_NAMES).sort());
    const r = await runCheckDetailed({ root: ROOT, paths: BENCH_LUA, minAipackVersion: MIN_AIPACK_VERSION });
    const unexpected = r.findings.filter((f) => !(f.rule === 'undefined-global' && BENCH_HOST_NAMES[f.file]?.some((n) => f.message === `undefined global '${n}'`)));
    expect(unexpected.map((f) => `${f.file}:${f.line}:${f.column}: ${f.rule}: ${f.message}`)).toEqual([]);
  });

  it('compiles on this engine', () => {
    const failures = [...SRC_LUA, ...BENCH_LUA].flatMap(chunksOf).flatMap(({ name, code }) => {
      const r = compiles(code, name);
      return r === true ? [] : [r];
    });
    expect(failures).toEqual([]);
  });

  it('a syntax error is reported (the check above can fail)', () => {
    expect(compiles('local x = = 1', 'bad.lua')).toMatch(/^bad\.lua:1: unexpected symbol near '='/);
  });
});
