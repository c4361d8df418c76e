import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE, findConfigFile, REPORTERS } from '../../src/harness/config-find.ts';
import { tmpDir, write } from './helpers.ts';

describe('findConfigFile', () => {
  it('is the nearest config file above the directory, not past the project root', () => {
    const dir = tmpDir();
    write(dir, 'package.json', '{}');
    const file = write(dir, CONFIG_FILE, '');
    expect(findConfigFile(nodePath.join(dir, 'agents/sub'))).toBe(file);
    // a nested project (its own package.json) has none of its own: the outer one does not apply
    write(dir, 'nested/package.json', '{}');
    expect(findConfigFile(nodePath.join(dir, 'nested/agents'))).toBeUndefined();
  });
});

describe('REPORTERS', () => {
  it('names the reporters of --reporter', () => {
    expect(REPORTERS).toEqual(['default', 'json', 'junit', 'html']);
  });
});
