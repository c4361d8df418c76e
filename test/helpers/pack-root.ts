// Throwaway project roots (package.json plus pack sources) for the tests of pack builds, archives and the commands over them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A temporary directory, removed after the test file. */
export function tempDir(prefix = 'coder-subagents-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** A throwaway project root: package.json plus the given files (paths relative to the root). */
export function makeRoot(files: Record<string, string>, version = '1.2.3'): string {
  const root = tempDir('coder-subagents-pack-');
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'coder-subagents', version }),
    ...files,
  };
  for (const [rel, content] of Object.entries(all)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  return root;
}

export const SOURCES: Record<string, string> = {
  'lua/main.aip': '# Before All\n\n```lua\nlocal u = require("utils_sub_agent")\n```\n',
  'lua/utils_sub_agent.lua': 'local C = require("sub_agent_contract")\nreturn {}\n',
  'lua/utils_data.lua': 'return { x = 1 }\r\n-- crlf kept\r\n',
  'lua/templates/prompt-template.md': '```toml\n#!meta\nsub_agents = []\n```\n',
  'lua/templates/dev/chat/dev-chat.md': '# chat\n',
  'lua/agent-selector.aip': '# Output\n\n```lua\nreturn nil\n```\n',
  'lua/.DS_Store': 'litter',
};
