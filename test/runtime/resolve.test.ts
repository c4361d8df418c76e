import { describe, expect, it } from 'vitest';
import { AgentNotFoundError, findPackDir, resolveAgent } from '../../src/runtime/resolve.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';

const WS = '/virtual/resolve-ws';
const vfs = createOverlayVfs(WS, {
  files: {
    'agents/a.aip': '',
    'agents/tool/main.aip': '',
    '.aipack/pack/custom/demo/proof/main.aip': '',
    '.aipack/pack/custom/demo/proof/sub/x.aip': '',
  },
});
const BASE = '/virtual/base';
const packs = [{ namespace: 'pro', name: 'coder', dir: '/virtual/repo/pack' }];

describe('resolveAgent', () => {
  it('finds local agents with or without .aip, and dir/main.aip', () => {
    expect(resolveAgent(vfs, packs, 'agents/a', WS).file).toBe(`${WS}/agents/a.aip`);
    expect(resolveAgent(vfs, packs, 'agents/tool', WS).file).toBe(`${WS}/agents/tool/main.aip`);
    expect(resolveAgent(vfs, packs, `${WS}/agents/a.aip`, '/elsewhere').file).toBe(`${WS}/agents/a.aip`);
  });

  it('finds pack agents and names their ref', () => {
    expect(resolveAgent(vfs, packs, 'demo@proof/sub/x', WS)).toEqual({
      file: `${WS}/.aipack/pack/custom/demo/proof/sub/x.aip`,
      pack: { namespace: 'demo', name: 'proof', dir: `${WS}/.aipack/pack/custom/demo/proof`, subPath: 'sub/x', ref: 'demo@proof/sub/x' },
    });
  });

  it('raises AgentNotFoundError with AIPack wording', () => {
    expect(() => resolveAgent(vfs, packs, 'agents/none', WS)).toThrow(new AgentNotFoundError(`No agent found for local path: 'agents/none'\n   (full path: ${WS}/agents/none)`));
    expect(() => resolveAgent(vfs, packs, 'no@pack', WS)).toThrow('No aipack matches for no@pack.');
    expect(() => resolveAgent(vfs, packs, 'demo@proof/zzz', WS)).toThrow('No agent files  matches for demo@proof/zzz');
  });
});

describe('findPackDir', () => {
  it('looks in the workspace custom packs, then the base custom packs, the known packs, the base installed packs', () => {
    const withBase = createOverlayVfs(WS, { files: {} });
    withBase.writeFile(`${BASE}/pack/custom/pro/coder/main.aip`, '');
    withBase.writeFile(`${BASE}/pack/installed/x/y/main.aip`, '');
    expect(findPackDir(vfs, packs, 'demo', 'proof')).toBe(`${WS}/.aipack/pack/custom/demo/proof`);
    expect(findPackDir(withBase, packs, 'pro', 'coder', BASE)).toBe(`${BASE}/pack/custom/pro/coder`);
    expect(findPackDir(withBase, packs, 'pro', 'coder')).toBe('/virtual/repo/pack');
    expect(findPackDir(withBase, packs, 'x', 'y', BASE)).toBe(`${BASE}/pack/installed/x/y`);
    expect(findPackDir(withBase, packs, 'x', 'z', BASE)).toBeUndefined();
  });
});
