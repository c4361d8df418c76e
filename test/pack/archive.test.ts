import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  InstallRefused,
  buildArchive,
  installPack,
  parsePackToml,
  readAipack,
  writeArchive,
} from '../../src/pack/archive.ts';
import { renderPack } from '../../src/pack/build.ts';
import { makeRoot, SOURCES, tempDir } from '../helpers/pack-root.ts';

const tmp = () => tempDir('coder-subagents-out-');
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

describe('pack archive', () => {
  it('is named after pack.toml and holds the rendered files, pack.toml at the root', () => {
    const root = makeRoot(SOURCES, '0.3.0');
    const out = tmp();
    const built = writeArchive(root, out);
    expect(built.path).toBe(join(out, 'pro@coder-v0.3.0.aipack'));
    expect(built.identity).toEqual({ namespace: 'pro', name: 'coder', version: '0.3.0' });
    const entries = readAipack(built.path);
    const rendered = renderPack(root);
    expect([...entries.keys()]).toEqual([...rendered.keys()]);
    expect(entries.has('pack.toml')).toBe(true);
    for (const [path, content] of rendered) expect(text(entries.get(path))).toBe(content);
  });

  it('gives the same bytes twice', () => {
    const root = makeRoot(SOURCES);
    const a = writeArchive(root, tmp());
    const b = writeArchive(root, tmp());
    expect(Buffer.from(readFileSync(a.path)).equals(readFileSync(b.path))).toBe(true);
    expect(Buffer.from(buildArchive(makeRoot(SOURCES)).bytes).equals(Buffer.from(a.bytes))).toBe(true);
  });

  it('uses Deflate entries', () => {
    const bytes = buildArchive(makeRoot(SOURCES)).bytes;
    // local file header: signature PK\x03\x04, compression method at offset 8 (8 = deflate)
    expect([...bytes.slice(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expect(bytes[8]).toBe(8);
  });

  it.each([
    ['1.0', /version "1.0" is invalid/],
    ['1.0.0+build.1', /version "1.0.0\+build.1" is invalid/],
    ['v1.0.0', /is invalid/],
    ['1.0.0-1beta', /is invalid/],
    ['0.1.1-alpha', /version "0.1.1-alpha" cannot be installed: a prerelease must end with \.N/],
  ])('refuses version %s', (version, error) => {
    expect(() => buildArchive(makeRoot(SOURCES, version))).toThrow(error);
  });

  it('accepts release and numbered prerelease versions', () => {
    for (const v of ['0.1.0', '10.20.30', '0.1.1-alpha.1', '1.0.0-rc_2.7']) {
      expect(buildArchive(makeRoot(SOURCES, v)).fileName).toBe(`pro@coder-v${v}.aipack`);
    }
  });
});

describe('parsePackToml', () => {
  const toml = (pack: string) => `[pack]\n${pack}\n`;
  it('validates the [pack] table', () => {
    expect(parsePackToml(toml('namespace = "my_ns"\nname = "a-b"\nversion = "1.0.0"'))).toEqual({
      namespace: 'my_ns',
      name: 'a-b',
      version: '1.0.0',
    });
    expect(() => parsePackToml('x = 1\n')).toThrow('pack.toml: missing [pack] section');
    expect(() => parsePackToml(toml('name = "a"\nversion = "1.0.0"'))).toThrow('pack.toml: [pack] namespace is missing');
    expect(() => parsePackToml(toml('namespace = "n"\nname = ""\nversion = "1.0.0"'))).toThrow(
      'pack.toml: [pack] name is missing',
    );
    expect(() => parsePackToml(toml('namespace = "n"\nname = "a"'))).toThrow('pack.toml: [pack] version is missing');
    expect(() => parsePackToml(toml('namespace = "1n"\nname = "a"\nversion = "1.0.0"'))).toThrow(
      /namespace "1n" is invalid/,
    );
    expect(() => parsePackToml(toml('namespace = "n"\nname = "a.b"\nversion = "1.0.0"'))).toThrow(
      /name "a.b" is invalid/,
    );
    expect(() => parsePackToml('[pack\n')).toThrow(/pack.toml: invalid TOML/);
  });
});

describe('installPack', () => {
  it('copies the pack into .aipack/pack/custom/pro/coder, creating .aipack/', () => {
    const ws = tmp();
    const r = installPack(makeRoot(SOURCES, '1.0.0'), ws);
    const dir = join(ws, '.aipack/pack/custom/pro/coder');
    expect(r.dir).toBe(dir);
    expect(readFileSync(join(dir, 'pack.toml'), 'utf8')).toContain('version = "1.0.0"');
    expect(existsSync(join(dir, 'lua/sub_agent_contract.lua'))).toBe(true);
    expect(r.written).toHaveLength(9);
    // the same version again: nothing to do
    expect(installPack(makeRoot(SOURCES, '1.0.0'), ws)).toMatchObject({ written: [], removed: [], previousVersion: '1.0.0' });
  });

  it('refuses a different version unless forced, and then replaces it', () => {
    const ws = tmp();
    installPack(makeRoot(SOURCES, '1.0.0'), ws);
    const dir = join(ws, '.aipack/pack/custom/pro/coder');
    writeFileSync(join(dir, 'old.lua'), 'x');
    const newer = makeRoot(SOURCES, '1.1.0');
    expect(() => installPack(newer, ws)).toThrow(InstallRefused);
    expect(() => installPack(newer, ws)).toThrow(
      `pro@coder 1.0.0 is already installed at ${dir}; use --force to replace it with 1.1.0`,
    );
    const r = installPack(newer, ws, { force: true });
    expect(r.previousVersion).toBe('1.0.0');
    expect(r.removed).toEqual(['old.lua']);
    expect(readFileSync(join(dir, 'pack.toml'), 'utf8')).toContain('version = "1.1.0"');
  });

  it('refuses a directory that is not a pack unless forced', () => {
    const ws = tmp();
    const dir = join(ws, '.aipack/pack/custom/pro/coder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(() => installPack(makeRoot(SOURCES), ws)).toThrow(/holds no readable pack.toml; use --force/);
    expect(installPack(makeRoot(SOURCES), ws, { force: true }).removed).toEqual(['notes.txt']);
  });
});

describe('the installed npm package (pack/ shipped, no lua/)', () => {
  /** A package root as npm installs it: package.json and the built pack/, no sources. */
  const packageRoot = (version: string) => {
    const files = new Map([...renderPack(makeRoot(SOURCES, version))].map(([rel, content]) => [`pack/${rel}`, content] as const));
    return makeRoot(Object.fromEntries(files), version);
  };

  it('install and pack use the built pack/', async () => {
    const { runCli } = await import('../helpers/cli.ts');
    const root = packageRoot('0.5.0');
    const ws = tmp();
    const r = await runCli(['install', '--root', root, '--workspace', ws], ws);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const installed = join(ws, '.aipack/pack/custom/pro/coder');
    for (const [rel, content] of renderPack(makeRoot(SOURCES, '0.5.0'))) expect(readFileSync(join(installed, rel), 'utf8')).toBe(content);
    const out = tmp();
    const p = await runCli(['pack', '--root', root, '--out', out], root);
    expect(p.code).toBe(0);
    expect(buildArchive(root).bytes).toEqual(buildArchive(makeRoot(SOURCES, '0.5.0')).bytes);
  });

  it('a root with neither lua/ nor pack/ is named', () => {
    expect(() => installPack(makeRoot({}), tmp())).toThrow(/no pack in .*: neither lua\/ \(the sources\) nor pack\/pack\.toml \(the built pack\) is there/);
  });
});
