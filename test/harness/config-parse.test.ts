import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/harness/config-parse.ts';
import { CONFIG_FILE } from '../../src/harness/config-find.ts';
import { mkdirSync, symlinkSync } from 'node:fs';
import { tmpDir, write } from './helpers.ts';

const problem = (file: string): string => {
  try {
    loadConfig(file);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('reads every key; paths and output_file are resolved against the file', () => {
    const dir = tmpDir();
    const file = write(dir, CONFIG_FILE, [
      'paths = ["agents"]', 'engine = "lua54"', 'aipack_version = "0.8.33"', 'budget = 5000000', 'strict = true',
      'order_check = true', 'reporter = "junit"', 'output_file = "reports/t.xml"', 'slow_ms = 300',
    ].join('\n'));
    expect(loadConfig(file)).toEqual({
      file, project: dir, paths: [nodePath.join(dir, 'agents')], engine: 'lua54', aipack_version: '0.8.33', budget: 5000000, strict: true,
      order_check: true, reporter: 'junit', output_file: nodePath.join(dir, 'reports/t.xml'), slow_ms: 300,
    });
  });

  it('names the file and the key of each problem, in one line', () => {
    const dir = tmpDir();
    const at = (text: string) => problem(write(dir, CONFIG_FILE, text)).replace(`${dir}/`, '');
    expect(at('strickt = true')).toMatch(new RegExp(`${CONFIG_FILE}: unknown key 'strickt' \\(did you mean 'strict'\\?\\)`));
    expect(at('reporter = "xml"')).toMatch(new RegExp(`${CONFIG_FILE}: reporter: expected one of default, json, junit, html$`));
    expect(at('engine = "lua51"')).toMatch(/engine: 'lua51' is not an engine of this version \(expected one of fengari, lua54\)$/);
    expect(at('budget = 0')).toMatch(/: budget: /);
    expect(at('paths = [')).toMatch(new RegExp(`${CONFIG_FILE}:1:\\d+: invalid TOML: `));
  });
});

describe('output_file stays in the project', () => {
  it('the project is the nearest directory with a package.json or .git, else the config file\'s own', () => {
    const dir = tmpDir();
    write(dir, 'package.json', '{}');
    const file = write(dir, `sub/${CONFIG_FILE}`, 'output_file = "../reports/x.xml"\n');
    expect(loadConfig(file)).toMatchObject({ project: dir, output_file: nodePath.join(dir, 'reports/x.xml') });
    const lone = tmpDir();
    expect(loadConfig(write(lone, CONFIG_FILE, 'output_file = "x.xml"\n')).project).toBe(lone);
  });

  it('refuses a path outside the project, absolute, climbing or through a symlink, naming the file and the key on one line', () => {
    const dir = tmpDir();
    const outside = tmpDir();
    write(dir, '.git/HEAD', '');
    mkdirSync(nodePath.join(dir, 'sub'));
    symlinkSync(outside, nodePath.join(dir, 'reports'));
    for (const out of [nodePath.join(outside, 'authorized_keys'), '../x.xml', 'a/../../x.xml', 'reports/authorized_keys', '.', 'sub/..']) {
      const file = write(dir, CONFIG_FILE, `output_file = ${JSON.stringify(out)}\n`);
      expect(problem(file)).toBe(
        `${file}: output_file: ${JSON.stringify(out)} leads outside the project ${dir} (symlinks resolved); a config file writes its report only inside the project (give --output-file to write elsewhere)`,
      );
    }
  });
});
