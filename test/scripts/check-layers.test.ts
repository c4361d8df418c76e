import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JS script without types
import { checkLayers } from '../../scripts/check-layers.mjs';

const check = checkLayers as (root: string) => string[];
let root: string | undefined;

/** A tree with the given files (paths relative to its root). */
function tree(files: Record<string, string>): string {
  root = mkdtempSync(nodePath.join(os.tmpdir(), 'layers-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(nodePath.dirname(nodePath.join(root, rel)), { recursive: true });
    writeFileSync(nodePath.join(root, rel), text);
  }
  return root;
}

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const base = {
  'src/support/a.ts': 'export const a = 1;\n',
  'src/engine/b.ts': "import { a } from '../support/a.ts';\nexport const b = a;\n",
  'src/cli/c.ts': "import { b } from '../engine/b.ts';\nexport const c = b;\n",
};

describe('check-layers', () => {
  it('accepts imports that run downward', () => {
    expect(check(tree(base))).toEqual([]);
  });

  it('fails on an upward import, naming both files and both layers', () => {
    const problems = check(tree({ ...base, 'src/engine/up.ts': "import { c } from '../cli/c.ts';\nexport const up = c;\n" }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^src\/engine\/up\.ts imports src\/cli\/c\.ts: 'engine' may not depend on 'cli'/);
  });

  it('fails on a type-only import that runs upward', () => {
    const problems = check(tree({ ...base, 'src/support/t.ts': "import type { c } from '../cli/c.ts';\nexport type T = typeof c;\n" }));
    expect(problems).toEqual([expect.stringMatching(/^src\/support\/t\.ts imports src\/cli\/c\.ts: 'support' may not depend on 'cli'/)]);
  });

  it('fails on an import between two folders of one layer', () => {
    const problems = check(tree({ ...base, 'src/check/x.ts': 'export const x = 1;\n', 'src/harness/y.ts': "export { x } from '../check/x.ts';\n" }));
    expect(problems).toEqual([expect.stringMatching(/'harness' may not depend on 'check'/)]);
  });

  it('fails on a cycle inside one folder', () => {
    const problems = check(
      tree({ ...base, 'src/aip/p.ts': "import { q } from './q.ts';\nexport const p = () => q;\n", 'src/aip/q.ts': "import { p } from './p.ts';\nexport const q = () => p;\n" }),
    );
    expect(problems).toEqual(['import cycle: src/aip/p.ts -> src/aip/q.ts']);
  });

  it('fails on a folder that is in no layer', () => {
    expect(check(tree({ ...base, 'src/extra/z.ts': 'export const z = 1;\n' }))).toEqual([expect.stringMatching(/^src\/extra\/z\.ts: folder 'extra' is in no layer/)]);
  });

  it('ignores imports named in comments', () => {
    expect(check(tree({ ...base, 'src/support/d.ts': "// import { c } from '../cli/c.ts';\n/* import { b } from '../engine/b.ts'; */\nexport const d = 1;\n" }))).toEqual([]);
  });

  it('fails on a comment or doc that points outside the repository', () => {
    const problems = check(
      tree({ ...base, 'src/support/e.ts': '// as RUN' + 'TIME.md says\nexport const e = 1;\n', 'docs/x.md': 'fixed in iss' + 'ue 12\n', 'test/t.test.ts': '// att' + 'ack 9\n' }),
    );
    expect(problems.sort()).toEqual([
      expect.stringMatching(/^docs\/x\.md:1: 'is{2}ue 12' points outside/),
      expect.stringMatching(/^src\/support\/e\.ts:1: 'RUNTIME\.md' points outside/),
      expect.stringMatching(/^test\/t\.test\.ts:1: 'at{2}ack 9' points outside/),
    ]);
  });
});

describe('this repository', () => {
  it('has no upward import, no cycle and no pointer outside it', () => {
    expect(check(nodePath.resolve(import.meta.dirname, '../..'))).toEqual([]);
  });
});

describe('check-layers: paths named in comments and docs', () => {
  const named = (files: Record<string, string>) => check(tree({ ...base, 'test/contract/x.test.ts': '', ...files }));

  it('fails on a comment or doc naming a file that does not exist, with where it is named', () => {
    expect(
      named({
        'src/support/a.ts': '// proven by test/contract/lua-parity.test.ts\nexport const a = 1;\n',
        'lua/m.lua': '-- see docs/gone.md\nreturn {}\n',
        'docs/x.md': 'The layers begin in `src/support/gone.ts`.\n',
        'README.md': 'Read docs/x.md and docs/missing.md.\n',
      }),
    ).toEqual([
      "src/support/a.ts:1: 'test/contract/lua-parity.test.ts' does not exist (a file was moved or renamed: name it as it is now)",
      "lua/m.lua:1: 'docs/gone.md' does not exist (a file was moved or renamed: name it as it is now)",
      "docs/x.md:1: 'src/support/gone.ts' does not exist (a file was moved or renamed: name it as it is now)",
      "README.md:1: 'docs/missing.md' does not exist (a file was moved or renamed: name it as it is now)",
    ]);
  });

  it('accepts paths that exist (from the root, from src/, beside the file), and examples that are no repository path', () => {
    expect(
      named({
        'src/support/a.ts': "// see test/contract/x.test.ts, support/a.ts and engine/b.ts\nexport const a = '// docs/in-a-string.md';\n",
        'src/cli/c.ts': "// the engine is engine/b.ts; ./c.ts\nimport { b } from '../engine/b.ts';\nexport const c = b;\n",
        'docs/x.md': [
          'Upstream: aipack-ai/aipack docs/their-own.md; an example workspace file `src/app.ts`, "docs/quoted.md".',
          'Upstream files: aipack-ai/packs-pro `pro/coder/main.aip`,',
          '`lua/their_own.lua`.',
          'Paths elsewhere: my-agents/a.aip, test/a/b.test.ts (no such folder: a pattern).',
          '```toml',
          'files = ["docs/plan.md"]',
          'docs/in-a-block.md',
          '```',
        ].join('\n'),
      }),
    ).toEqual([]);
  });

  it('reads only comments in code: a path in a string is data', () => {
    expect(named({ 'src/support/a.ts': "export const a = 'docs/gone.md';\n", 'lua/m.lua': 'return "docs/gone.md"\n' })).toEqual([]);
  });
});
