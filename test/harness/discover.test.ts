import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { affectedContractFiles, DiscoveryError, findContractFiles } from '../../src/harness/discover.ts';
import { tmpDir, write } from './helpers.ts';

describe('findContractFiles', () => {
  it('finds *.contract.toml recursively, skipping node_modules and dot-dirs', () => {
    const dir = tmpDir();
    write(dir, 'a.contract.toml', '');
    write(dir, 'sub/deep/b.contract.toml', '');
    write(dir, 'sub/notes.toml', '');
    write(dir, 'node_modules/pkg/c.contract.toml', '');
    write(dir, '.aipack/d.contract.toml', '');
    expect(findContractFiles([], dir)).toEqual([nodePath.join(dir, 'a.contract.toml'), nodePath.join(dir, 'sub/deep/b.contract.toml')]);
    expect(findContractFiles(['sub'], dir)).toEqual([nodePath.join(dir, 'sub/deep/b.contract.toml')]);
  });

  it('takes a file named explicitly, without duplicates', () => {
    const dir = tmpDir();
    const a = write(dir, 'a.contract.toml', '');
    expect(findContractFiles(['a.contract.toml', '.'], dir)).toEqual([a]);
  });

  it('takes the case file of an agent named explicitly', () => {
    const dir = tmpDir();
    write(dir, 'agents/a.aip', '');
    const cases = write(dir, 'agents/a.contract.toml', '');
    expect(findContractFiles(['agents/a.aip'], dir)).toEqual([cases]);
    write(dir, 'agents/b.aip', '');
    expect(() => findContractFiles(['agents/b.aip'], dir)).toThrow(
      'agents/b.aip is an agent, not a case file, and agents/b.contract.toml does not exist',
    );
  });

  it('rejects a path that does not exist', () => {
    expect(() => findContractFiles(['nope'], tmpDir())).toThrow(DiscoveryError);
    expect(() => findContractFiles(['nope'], tmpDir())).toThrow('nope: no such file or directory');
  });
});

describe('affectedContractFiles (test --watch)', () => {
  const watched = new Map<string, string[]>([
    ['/p/agents/a.contract.toml', ['/p/agents/a.contract.toml', '/p/agents/a.aip', '/p/agents/lua']],
    ['/p/agents/b.contract.toml', ['/p/agents/b.contract.toml', '/p/agents/b.aip', '/p/agents/lua']],
    ['/p/cases/c.contract.toml', ['/p/cases/c.contract.toml', '/p/agents/a.aip', '/p/cases/templates']],
  ]);

  it('maps an agent change to every case file testing it', () => {
    expect(affectedContractFiles('/p/agents/a.aip', watched)).toEqual(['/p/agents/a.contract.toml', '/p/cases/c.contract.toml']);
  });

  it('maps a change in a lua/ or support dir to the files using it', () => {
    expect(affectedContractFiles('/p/agents/lua/util.lua', watched)).toEqual(['/p/agents/a.contract.toml', '/p/agents/b.contract.toml']);
    expect(affectedContractFiles('/p/cases/templates/x.md', watched)).toEqual(['/p/cases/c.contract.toml']);
  });

  it('maps a case file to itself, a new one included', () => {
    expect(affectedContractFiles('/p/agents/b.contract.toml', watched)).toEqual(['/p/agents/b.contract.toml']);
    expect(affectedContractFiles('/p/new/n.contract.toml', watched)).toEqual(['/p/new/n.contract.toml']);
  });

  it('ignores unrelated files and mere prefixes', () => {
    expect(affectedContractFiles('/p/agents/readme.md', watched)).toEqual([]);
    expect(affectedContractFiles('/p/agents/a.aip.bak', watched)).toEqual([]);
    expect(affectedContractFiles('/p/agents/lua-old/x.lua', watched)).toEqual([]);
  });
});
