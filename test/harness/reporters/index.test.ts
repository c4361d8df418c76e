import { describe, expect, it } from 'vitest';
import { REPORTER_BY_NAME } from '../../../src/harness/reporters/index.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

describe('the reporters by name', () => {
  it('default is for people; json and junit are for machines, each a whole report ending with a newline', () => {
    expect(Object.keys(REPORTER_BY_NAME).sort()).toEqual(['default', 'json', 'junit']);
    expect(REPORTER_BY_NAME.default.machine).toBe(false);
    expect([REPORTER_BY_NAME.json.machine, REPORTER_BY_NAME.junit.machine]).toEqual([true, true]);
    const o = { cwd: CWD, slowMs: 1000 };
    const r = sampleSuite();
    expect(REPORTER_BY_NAME.default.render(r, o)).toMatch(/^✓ agents\/a\.contract\.toml[\s\S]*1 skipped, 1 case file not run \(see the error above\)\n$/);
    expect(JSON.parse(REPORTER_BY_NAME.json.render(r, o)).failed).toBe(1);
    expect(REPORTER_BY_NAME.junit.render(r, o)).toMatch(/^<\?xml [\s\S]*<\/testsuites>\n$/);
  });
});
