import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderLuaDefinitions } from '../../../src/check/luals.ts';
import { runCli } from '../../helpers/cli.ts';
import { tmpDir, write } from '../../harness/helpers.ts';

describe('coder-subagents types', () => {
  it('writes the definitions into --dir and points .luarc.json at them; check then passes', async () => {
    const dir = tmpDir();
    write(dir, 'agents/a.aip', '# Output\n```lua\nreturn nil\n```\n');
    const r = await runCli(['types', '--dir', 'editor/lua'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'wrote editor/lua/aip.lua',
        'wrote editor/lua/ctx.lua',
        'wrote editor/lua/globals.lua',
        'wrote editor/lua/contract.lua',
        'created .luarc.json (workspace.library: editor/lua)',
        '',
      ].join('\n'),
    );
    for (const [name, content] of renderLuaDefinitions()) expect(readFileSync(nodePath.join(dir, 'editor/lua', name), 'utf8')).toBe(content);
    expect(JSON.parse(readFileSync(nodePath.join(dir, '.luarc.json'), 'utf8'))['workspace.library']).toEqual(['editor/lua']);
    expect((await runCli(['types', '--dir', 'editor/lua'], dir)).stdout).toContain('.luarc.json already uses editor/lua\n');
    const check = await runCli(['check', 'agents'], dir);
    expect(check.stdout).toBe('check passed (1 file)\n');
  });

  it('stale definitions fail check until types is run again', async () => {
    const dir = tmpDir();
    write(dir, 'agents/a.aip', '# Output\n```lua\nreturn nil\n```\n');
    await runCli(['types'], dir);
    write(dir, 'lua-types/ctx.lua', '---@meta ctx\n-- edited\n');
    write(dir, 'lua-types/globals.lua', readFileSync(nodePath.join(dir, 'lua-types/globals.lua'), 'utf8') + '\n-- edited\n');
    const check = await runCli(['check', 'agents'], dir);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('lua-types/globals.lua:1:1: stale-types: the Lua type definitions are not what `coder-subagents types` would write: globals.lua is stale; run `npx coder-subagents types --dir lua-types`\n');
    await runCli(['types'], dir);
    expect((await runCli(['check', 'agents'], dir)).code).toBe(0);
  });
});
