import { existsSync, readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_PACK, REPO_ROOT } from '../../src/runtime/packs.ts';

describe('the repository pack', () => {
  it('is pro@coder from pack/ at the repository root', () => {
    expect(existsSync(nodePath.join(REPO_ROOT, 'package.json'))).toBe(true);
    expect(REPO_ROOT.endsWith('/')).toBe(false);
    expect(REPO_PACK).toMatchObject({ namespace: 'pro', name: 'coder', dir: nodePath.join(REPO_ROOT, 'pack') });
    expect(readFileSync(nodePath.join(REPO_PACK.dir, 'pack.toml'), 'utf8')).toMatch(/namespace\s*=\s*"pro"[\s\S]*name\s*=\s*"coder"/);
  });
});
