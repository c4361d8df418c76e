import luaparse from 'luaparse';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { AIP_FUNCTIONS } from '../../src/aip/catalog.ts';
import { signatureOf } from '../../src/aip/functions.ts';
import { runCheckDetailed } from '../../src/check/index.ts';
import {
  PACKAGE_TYPES_DIR,
  renderLuaDefinitions,
  staleLuaDefinitions,
  TYPES_HEADER,
  writeLuaDefinitions,
  writeLuarc,
} from '../../src/check/luals.ts';
import { STAGES, SubAgentInputSchemas } from '../../src/contract/index.ts';
import { tmpDir } from '../harness/helpers.ts';

const files = renderLuaDefinitions();
const all = [...files.values()].join('\n');

// the LuaLS annotations the generator uses, each with its grammar
const ANNOTATION = [
  /^---@meta [a-z]+$/,
  /^---@class [A-Za-z_][\w.]*$/,
  /^---@field (?:[A-Za-z_]\w*\??|\[string\]) \S.*$/,
  new RegExp(String.raw`^---@param (?:[A-Za-z_]\w*\??|\.\.\.) .+$`),
  /^---@return .+$/,
  /^---@overload fun\(.*\)(?:: .+)?$/,
  /^---@type .+$/,
  /^---@deprecated$/,
];

/** brackets of a type expression are balanced */
function balanced(s: string): boolean {
  const open = '({[<';
  const close = ')}]>';
  const stack: string[] = [];
  for (const ch of s.replace(/"[^"]*"/g, '')) {
    if (open.includes(ch)) stack.push(ch);
    else if (close.includes(ch)) {
      if (stack.pop() !== open[close.indexOf(ch)]) return false;
    }
  }
  return stack.length === 0;
}

describe('LuaLS definitions', () => {
  it('are four ---@meta files with the generated header, valid Lua, and well-formed annotations', () => {
    expect([...files.keys()]).toEqual(['aip.lua', 'ctx.lua', 'globals.lua', 'contract.lua']);
    for (const [name, content] of files) {
      const lines = content.split('\n');
      expect(lines[0], name).toMatch(/^---@meta /);
      expect(lines[1], name).toBe(TYPES_HEADER);
      expect(() => luaparse.parse(content, { luaVersion: '5.3' }), name).not.toThrow();
      for (const line of lines.filter((l) => l.startsWith('---@'))) {
        expect(ANNOTATION.some((re) => re.test(line)), `${name}: ${line}`).toBe(true);
        expect(balanced(line), `${name}: ${line}`).toBe(true);
      }
    }
  });

  it('declare every aip function of the catalog with its parameters, and every constant', () => {
    const declared = new Map<string, string[]>();
    const lines = files.get('aip.lua')!.split('\n');
    lines.forEach((line, i) => {
      const m = /^function (aip\.\w+\.\w+)\((.*)\) end$/.exec(line);
      if (!m) return;
      // the @param lines right above it
      const params: string[] = [];
      for (let j = i - 1; j >= 0 && lines[j].startsWith('---@'); j--) {
        const p = /^---@param (\S+)/.exec(lines[j]);
        if (p) params.unshift(p[1].replace(/\?$/, ''));
      }
      expect(params.join(', '), m[1]).toBe(m[2]);
      declared.set(m[1], params);
    });
    for (const f of AIP_FUNCTIONS) {
      if (f.kind === 'constant') {
        expect(files.get('aip.lua')).toContain(`\n${f.path} = `);
        continue;
      }
      expect(declared.has(f.path), f.path).toBe(true);
      expect(declared.get(f.path)).toEqual(signatureOf(f.path)!.params.map((p) => (p.variadic ? '...' : p.name)));
    }
    expect(files.get('aip.lua')).toContain('(AIPack 0.8.17 until before 0.8.22)\n---@deprecated\n---@return AipFlowDirective\nfunction aip.flow.redo() end');
  });

  it('declare CTX, the globals and one input class per stage with the contract fields', () => {
    expect(files.get('ctx.lua')).toContain('---@class CTX\n');
    expect(files.get('ctx.lua')).toContain('---@field RUN_NUM integer Number of the current run. (since AIPack 0.8.12)');
    for (const g of ['is_null', 'value_or', 'nil_if_null', 'is_list']) expect(files.get('globals.lua')).toMatch(new RegExp(`\nfunction ${g}\\(`));
    expect(files.get('globals.lua')).toContain('---@type CoderSubAgentInput|any\ninput = nil');
    const contract = files.get('contract.lua')!;
    const classes = { pre: 'CoderPreInput', pre_task: 'CoderPreTaskInput', post_task: 'CoderPostTaskInput', post: 'CoderPostInput' };
    for (const stage of STAGES) {
      const block = contract.split(`---@class ${classes[stage]}\n`)[1].split('\n\n')[0];
      const fields = [...block.matchAll(/^---@field (\w+)/gm)].map((m) => m[1]);
      expect(fields, stage).toEqual(Object.keys(SubAgentInputSchemas[stage].shape));
      expect(block).toContain(`---@field coder_stage "${stage}"`);
    }
    expect(contract).toContain('---@class CoderSubAgentResponse\n');
    expect(contract).toContain(
      '---@field coder_params? table<string, any> stage form: replaces the params; event form: merged into them (keys it omits stay); at end merged into what the later end sub-agents receive (lax, warned); a sub_agents key in it is removed before use (used in pre, pre_task)',
    );
    expect(contract).toContain('---@class CoderAgentConfig\n');
  });

  it('declare the event form\'s input classes too (upstream pro@coder\'s fields), and its response fields', () => {
    const contract = files.get('contract.lua')!;
    const fieldsOf = (cls: string) => [...contract.split(`---@class ${cls}\n`)[1].split('\n\n')[0].matchAll(/^---@field (\w+)/gm)].map((m) => m[1]);
    const common = ['stage', 'event', 'coder_prompt_dir', 'coder_params', 'coder_prompt', 'agent_config', 'sub_agents_prev', 'sub_agents_next', 'coder_redo_count', 'coder_workbench'];
    expect(fieldsOf('CoderEventPreInput')).toEqual(common);
    expect(fieldsOf('CoderEventPostInput')).toEqual([...common, 'coder_responses', 'coder_context_file_refs', 'coder_knowledge_file_refs', 'coder_working_file_refs']);
    expect(fieldsOf('CoderEventResponsesItem')).toEqual([
      'content_extruded',
      'file_changes_status',
      'files_changes_failed',
      'deferred_failure_report',
      'content_raw_path',
      'auto_fix',
      'auto_fix_result',
    ]);
    expect(fieldsOf('CoderEventPrev')).toEqual(['event', 'stage', 'config', 'agent_result', 'sub_agent_result']);
    expect(fieldsOf('CoderSubAgentResponse')).toEqual(expect.arrayContaining(['emit_events', 'agent_on', 'coder_redo']));
    // the global input names both forms' classes
    expect(contract).toMatch(/CoderEventPreInput[\s\S]*CoderEventPostInput/);
  });

  it('the shipped copy (lua-types) is what the generator writes', () => {
    for (const [name, content] of files) expect(readFileSync(nodePath.join(PACKAGE_TYPES_DIR, name), 'utf8'), name).toBe(content);
    expect(staleLuaDefinitions(nodePath.dirname(nodePath.dirname(PACKAGE_TYPES_DIR)), ['lua-types'])).toEqual([]);
  });
});

describe('stale definitions', () => {
  afterEach(() => {
    vi.doUnmock('../../src/aip/catalog.ts');
    vi.doUnmock('../../src/contract/schemas.ts');
    vi.resetModules();
  });

  const project = () => {
    const root = tmpDir();
    mkdirSync(nodePath.join(root, 'agents'), { recursive: true });
    writeFileSync(nodePath.join(root, 'agents/a.aip'), '# Output\n```lua\nreturn nil\n```\n');
    writeLuaDefinitions(nodePath.join(root, 'lua-types'));
    expect(writeLuarc(root, 'lua-types')).toBe('created');
    return root;
  };

  it('fail check: a changed, missing or unexpected file of a directory .luarc.json names', async () => {
    const root = project();
    const clean = await runCheckDetailed({ root, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(clean.findings).toEqual([]);
    writeFileSync(nodePath.join(root, 'lua-types/aip.lua'), files.get('aip.lua')!.replace('function aip.file.copy', 'function aip.file.kopy'));
    writeFileSync(nodePath.join(root, 'lua-types/old.lua'), `---@meta old\n${TYPES_HEADER}\n`);
    writeFileSync(nodePath.join(root, 'lua-types/mine.lua'), '---@meta mine\n'); // not ours: left alone
    const r = await runCheckDetailed({ root, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.rule}: ${f.message}`)).toEqual([
      'lua-types/aip.lua:1:1: stale-types: the Lua type definitions are not what `coder-subagents types` would write: aip.lua is stale; run `npx coder-subagents types --dir lua-types`',
      'lua-types/old.lua:1:1: stale-types: the Lua type definitions are not what `coder-subagents types` would write: old.lua is unexpected; run `npx coder-subagents types --dir lua-types`',
    ]);
  });

  it('follow the catalog: a function whose version changes makes the written definitions stale', async () => {
    const root = project();
    vi.resetModules();
    vi.doMock('../../src/aip/catalog.ts', async (importOriginal) => {
      const orig = await importOriginal<typeof import('../../src/aip/catalog.ts')>();
      return { ...orig, AIP_FUNCTIONS: orig.AIP_FUNCTIONS.map((f) => (f.path === 'aip.file.copy' ? { ...f, since: '0.8.16' } : f)) };
    });
    const luals = await import('../../src/check/luals.ts');
    expect(luals.renderLuaDefinitions().get('aip.lua')).toContain('Copies a file to a workspace path. (since AIPack 0.8.16)');
    expect(luals.staleLuaDefinitions(root, ['lua-types'])).toEqual([{ dir: 'lua-types', file: 'aip.lua', what: 'stale' }]);
  });

  it('follow the contract: a new input field makes the written definitions stale', async () => {
    const root = project();
    vi.resetModules();
    vi.doMock('../../src/contract/schemas.ts', async (importOriginal) => {
      const orig = await importOriginal<typeof import('../../src/contract/schemas.ts')>();
      const pre = orig.SubAgentInputSchemas.pre.extend({ coder_extra: z.string() });
      return { ...orig, SubAgentInputSchemas: { ...orig.SubAgentInputSchemas, pre } };
    });
    const luals = await import('../../src/check/luals.ts');
    expect(luals.renderLuaDefinitions().get('contract.lua')).toContain('---@field coder_extra string');
    expect(luals.staleLuaDefinitions(root, ['lua-types'])).toEqual([{ dir: 'lua-types', file: 'contract.lua', what: 'stale' }]);
  });
});

describe('.luarc.json', () => {
  it('is created, or the library is added to an existing one (other settings kept); invalid JSON is not overwritten', () => {
    const root = tmpDir();
    expect(writeLuarc(root, 'lua-types')).toBe('created');
    expect(JSON.parse(readFileSync(nodePath.join(root, '.luarc.json'), 'utf8'))['workspace.library']).toEqual(['lua-types']);
    expect(writeLuarc(root, 'lua-types')).toBe('unchanged');
    writeFileSync(nodePath.join(root, '.luarc.json'), JSON.stringify({ workspace: { library: ['x'] }, 'diagnostics.globals': ['G'] }));
    expect(writeLuarc(root, 'lua-types')).toBe('updated');
    expect(JSON.parse(readFileSync(nodePath.join(root, '.luarc.json'), 'utf8'))).toEqual({
      workspace: { library: ['x', 'lua-types'] },
      'diagnostics.globals': ['G'],
    });
    writeFileSync(nodePath.join(root, '.luarc.json'), '{ nope');
    expect(() => writeLuarc(root, 'lua-types')).toThrow(/not valid JSON/);
    expect(readFileSync(nodePath.join(root, '.luarc.json'), 'utf8')).toBe('{ nope');
    expect(existsSync(nodePath.join(root, 'types'))).toBe(false);
  });
});

describe('.luarc.json lists one directory of our definitions', () => {
  it('the same dir spelled differently, or another copy of the definitions, is replaced, not listed twice', () => {
    const root = tmpDir();
    writeLuaDefinitions(nodePath.join(root, 'node_modules/coder-subagents/lua-types'));
    writeLuaDefinitions(nodePath.join(root, 'lua-types'));
    writeFileSync(nodePath.join(root, '.luarc.json'), JSON.stringify({ 'workspace.library': ['other', 'node_modules/coder-subagents/lua-types', './lua-types/'] }));
    expect(writeLuarc(root, 'lua-types')).toBe('updated');
    expect(JSON.parse(readFileSync(nodePath.join(root, '.luarc.json'), 'utf8'))['workspace.library']).toEqual(['other', 'lua-types']);
    expect(writeLuarc(root, 'lua-types')).toBe('unchanged');
  });
});

describe('the response class', () => {
  it('is closed, so the editor flags a misspelled key', () => {
    const contract = files.get('contract.lua')!;
    const response = contract.slice(contract.indexOf('---@class CoderSubAgentResponse'));
    const body = response.slice(0, response.indexOf('\n\n'));
    expect(body).toContain('---@field coder_prompts?');
    expect(body).not.toContain('---@field [string] any');
  });
});
