import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderPack } from '../../../src/pack/build.ts';
import { runCli } from '../../helpers/cli.ts';
import { makeRoot, SOURCES } from '../../helpers/pack-root.ts';

describe('coder-subagents build', () => {
  it('renders pack/ from lua/, lists what it wrote, then says it is up to date', async () => {
    const root = makeRoot(SOURCES, '0.6.0');
    const r = await runCli(['build', '--root', root], root);
    expect(r.code).toBe(0);
    const rendered = renderPack(root);
    expect(r.stdout.trim().split('\n').sort()).toEqual([...rendered.keys()].map((f) => `wrote pack/${f}`).sort());
    for (const [rel, content] of rendered) expect(readFileSync(join(root, 'pack', rel), 'utf8')).toBe(content);
    const again = await runCli(['build', '--root', root], root);
    expect(again.stdout).toBe('pack/ is up to date\n');
  });

  /** A package root as npm installs it: package.json and the built pack/, no sources. */
  const packageRoot = (version: string) => {
    const files = new Map([...renderPack(makeRoot(SOURCES, version))].map(([rel, content]) => [`pack/${rel}`, content] as const));
    return makeRoot(Object.fromEntries(files), version);
  };

  it('build says in one line that it needs a clone of the repository', async () => {
    const root = packageRoot('0.5.0');
    const r = await runCli(['build', '--root', root], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: build needs the pack sources (lua/main.aip), which only a clone of the repository holds; the installed package ships the built pack: use `coder-subagents install` or `coder-subagents pack`\n',
    );
  });});
