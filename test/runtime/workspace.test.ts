import fs from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { findWorkspace } from '../../src/runtime/workspace.ts';
import { tmpDir } from '../harness/helpers.ts';

describe('findWorkspace', () => {
  it('is the nearest directory up holding .aipack/, else the start directory', () => {
    const root = fs.realpathSync(tmpDir());
    fs.mkdirSync(nodePath.join(root, 'ws', '.aipack'), { recursive: true });
    fs.mkdirSync(nodePath.join(root, 'ws', 'src', 'deep'), { recursive: true });
    expect(findWorkspace(nodePath.join(root, 'ws', 'src', 'deep'))).toBe(nodePath.join(root, 'ws'));
    expect(findWorkspace(nodePath.join(root, 'ws'))).toBe(nodePath.join(root, 'ws'));
    fs.mkdirSync(nodePath.join(root, 'other'));
    // a file named .aipack is not a workspace marker
    fs.writeFileSync(nodePath.join(root, 'other', '.aipack'), '');
    expect(findWorkspace(nodePath.join(root, 'other'))).toBe(nodePath.join(root, 'other'));
  });
});
