import { describe, expect, it } from 'vitest';
import { apiStatusAt } from '../../src/aip/api-status.ts';
import { aipFunctionsAt } from '../../src/aip/catalog.ts';

describe('apiStatusAt', () => {
  it('lists every function of the version once, with what the simulator does with it', () => {
    const rows = apiStatusAt('0.8.15');
    expect(rows.map((r) => r.path)).toEqual(aipFunctionsAt('0.8.15').map((f) => f.path));
    const status = (p: string) => rows.find((r) => r.path === p)?.status;
    expect(status('aip.text.split_first')).toBe('simulated');
    expect(status('aip.lua.merge')).toBe('simulated'); // in prelude.lua
    expect(status('aip.cmd.exec')).toBe('scripted');
    expect(status('aip.web.get')).toBe('scripted');
    expect(status('aip.file.load')).toBe('stricter');
    expect(status('aip.udiffx.apply_file_changes')).toBe('stricter');
    expect(status('aip.file.load_docx_as_md')).toBe('not simulated');
  });

  it('follows the version: a function added later is absent before', () => {
    expect(apiStatusAt('0.8.14').some((r) => r.path === 'aip.file.copy')).toBe(false);
    expect(apiStatusAt('0.8.15').find((r) => r.path === 'aip.file.copy')).toMatchObject({ since: '0.8.15', status: 'stricter' });
  });
});
