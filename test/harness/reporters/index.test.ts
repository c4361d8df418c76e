import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadReporter, REPORTER_BY_NAME } from '../../../src/harness/reporters/index.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

// loading the html reporter (its tokenizer's tables) takes seconds on a busy machine; no test here is about that
beforeAll(() => loadReporter('html'), 180_000);

describe('loadReporter', () => {
  it('the html reporter renders only once loaded: its modules are not loaded with the others', async () => {
    vi.resetModules();
    const fresh = await import('../../../src/harness/reporters/index.ts');
    expect(() => fresh.REPORTER_BY_NAME.html.render(sampleSuite(), { cwd: CWD, slowMs: 1000 })).toThrow('await loadReporter("html") first');
    expect(fresh.REPORTER_BY_NAME.json.render(sampleSuite(), { cwd: CWD, slowMs: 1000 })).toContain('"failed": 1');
    await fresh.loadReporter('html');
    expect(fresh.REPORTER_BY_NAME.html.render(sampleSuite(), { cwd: CWD, slowMs: 1000 })).toMatch(/^<!doctype html>/);
  });
});

describe('the reporters by name', () => {
  it('default is for people; json, junit and html are for machines, each a whole report ending with a newline', () => {
    expect(Object.keys(REPORTER_BY_NAME).sort()).toEqual(['default', 'html', 'json', 'junit']);
    expect(REPORTER_BY_NAME.default.machine).toBe(false);
    expect([REPORTER_BY_NAME.json.machine, REPORTER_BY_NAME.junit.machine, REPORTER_BY_NAME.html.machine]).toEqual([true, true, true]);
    const o = { cwd: CWD, slowMs: 1000 };
    const r = sampleSuite();
    expect(REPORTER_BY_NAME.default.render(r, o)).toMatch(/^✓ agents\/a\.contract\.toml[\s\S]*1 skipped, 1 case file not run \(see the error above\)\n$/);
    expect(JSON.parse(REPORTER_BY_NAME.json.render(r, o)).failed).toBe(1);
    expect(REPORTER_BY_NAME.junit.render(r, o)).toMatch(/^<\?xml [\s\S]*<\/testsuites>\n$/);
    expect(REPORTER_BY_NAME.html.render(r, o)).toMatch(/^<!doctype html>[\s\S]*<\/html>\n$/);
  });
});

describe('every reporter escapes what a case, its file or its messages hold', () => {
  // a repository writes the case names, file names and (through its agent) the messages and diffs: none may plant a
  // line of its own in a report (an authorized_keys or shell-profile line), nor send a control sequence
  const PLANT = '\nssh-rsa PLANTED\r\n';
  const CONTROLS = '\u0000\u0007\u001b[2J\u007f\u009b31m\u2028\u2029\u202e\u2066';
  function hostile() {
    const r = sampleSuite();
    const [a, b] = r.files;
    const file = `${CWD}/agents/x${PLANT}.contract.toml`;
    const failed = { ...a!.cases[1]!, file, name: `n${PLANT}${CONTROLS}`, message: `files["a"]: text differs:\n  - old${PLANT}\n  + new${CONTROLS}`, warnings: [`w${PLANT}${CONTROLS}`] };
    r.files = [{ ...a!, file, cases: [a!.cases[0]!, failed] }, b!];
    r.cases = [a!.cases[0]!, failed, ...b!.cases];
    r.errors = [`agents/c.contract.toml: case #1 "e${PLANT}": expect.files: ${CONTROLS}`];
    r.coverage = [{ agent: `${CWD}/agents/x${PLANT}.aip`, stages: { pre: 1 } }];
    r.agentsWithoutContract = [`${CWD}/agents/y${PLANT}.aip`];
    return r;
  }
  const RAW_CONTROL = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

  it.each(Object.keys(REPORTER_BY_NAME))('%s: no raw control character but its own newlines, and no line it did not write', (name) => {
    const reporter = REPORTER_BY_NAME[name as keyof typeof REPORTER_BY_NAME];
    const text = reporter.render(hostile(), { cwd: CWD, slowMs: 1000 });
    expect(text).not.toMatch(RAW_CONTROL);
    for (const line of text.split('\n')) {
      // a machine report's lines are all its own; the human report shows messages and warnings indented under their case
      expect(reporter.machine ? line.trimStart() : line).not.toMatch(/^ssh-rsa/);
    }
    expect(text).toContain('PLANTED');
  });

  it('the JSON report parses back to the names and messages as they were', () => {
    const r = hostile();
    const j = JSON.parse(REPORTER_BY_NAME.json.render(r, { cwd: CWD, slowMs: 1000 }));
    expect(j.cases[1].name).toBe(r.cases[1]!.name);
    expect(j.cases[1].message).toBe(r.cases[1]!.message);
    expect(j.errors).toEqual(r.errors);
  });

  it('JUnit writes newlines inside attributes and text as character references', () => {
    const xml = REPORTER_BY_NAME.junit.render(hostile(), { cwd: CWD, slowMs: 1000 });
    expect(xml).toContain('name="n&#10;ssh-rsa PLANTED&#13;&#10;');
    expect(xml).toContain('  - old&#10;ssh-rsa PLANTED&#13;&#10;&#10;  + new');
    expect(xml.split('\n').every((l) => /^\s*<|^$/.test(l))).toBe(true);
  });
});
