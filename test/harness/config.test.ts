import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/harness/config.ts';
import { CONFIG_FILE } from '../../src/harness/config-file.ts';
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
      file, paths: [nodePath.join(dir, 'agents')], engine: 'lua54', aipack_version: '0.8.33', budget: 5000000, strict: true,
      order_check: true, reporter: 'junit', output_file: nodePath.join(dir, 'reports/t.xml'), slow_ms: 300,
    });
  });

  it('names the file and the key of each problem, in one line', () => {
    const dir = tmpDir();
    const at = (text: string) => problem(write(dir, CONFIG_FILE, text)).replace(`${dir}/`, '');
    expect(at('strickt = true')).toMatch(new RegExp(`${CONFIG_FILE}: unknown key 'strickt' \\(did you mean 'strict'\\?\\)`));
    expect(at('reporter = "xml"')).toMatch(new RegExp(`${CONFIG_FILE}: reporter: expected one of default, json, junit$`));
    expect(at('engine = "lua51"')).toMatch(/engine: 'lua51' is not an engine of this version \(expected one of fengari, lua54\)$/);
    expect(at('budget = 0')).toMatch(/: budget: /);
    expect(at('paths = [')).toMatch(new RegExp(`${CONFIG_FILE}:1:\\d+: invalid TOML: `));
  });
});
