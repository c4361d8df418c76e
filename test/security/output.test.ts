// Output that cannot lie: control characters from agents, case files and file names are shown escaped in the
// terminal, the JUnit and JSON reports are valid for any string, and names that are not UTF-8 are refused by name.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SuiteResult } from '../../src/harness/suite-result.ts';
import { formatSuite } from '../../src/harness/reporters/human.ts';
import { suiteJson } from '../../src/harness/reporters/json.ts';
import { suiteJunit } from '../../src/harness/reporters/junit.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { writeChanges } from '../../src/runtime/commit.ts';
import { runCli } from '../helpers/cli.ts';
import { afterAll, arena, type Arena } from './helpers.ts';

let a: Arena;
beforeEach(() => {
  a = arena();
});
afterEach(() => a.cleanup());

/** ESC, CR and the C1 CSI: what a fake summary drawn over a failure needs. */
const RAW = /[\u001b\r\u009b\u0007]/;
const FAKE = '\\27[2K\\r\\27[32m1 passed\\27[0m\\155K\\7';

describe('terminal text', () => {
  it("an agent's error with escape sequences is shown escaped by run-agent (stdout and stderr)", async () => {
    a.write('evil.aip', afterAll(`error("${FAKE}")`));
    const r = await runCli(['run-agent', 'evil.aip'], a.ws);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('\\x1b[2K\\r\\x1b[32m1 passed');
  });

  it('a saved file name with escape sequences is listed escaped', async () => {
    a.write('evil.aip', afterAll(`aip.file.save("a\\27[1A\\rb.txt", "x") return 1`));
    const r = await runCli(['run-agent', 'evil.aip'], a.ws);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('a\\x1b[1A\\rb.txt');
  });

  const suite = (name: string, message: string): SuiteResult => ({
    files: [{ file: `/p/x${name}.contract.toml`, agent: 'a', agentFile: '/p/a.aip', cases: [], watch: [] }],
    cases: [{ file: `/p/x${name}.contract.toml`, name, index: 1, stage: 'pre', status: 'failed', message, warnings: [message], ms: 1 }],
    errors: [],
    passed: 0,
    failed: 1,
    skipped: 0,
    notRun: 0,
    agentsWithoutContract: [],
    coverage: [],
  });
  const NASTY = 'n\u001b[2K\r\u0000\u0001\u0008\u000b\u000c\u007f\u0085\u009b\u202e\udfff\ud800\ufffe\uffff&<>"\'';

  it('the human test report escapes control characters in case names, file names and messages', () => {
    const text = formatSuite(suite(NASTY, `boom ${NASTY}`), { cwd: '/p' });
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).toContain('n\\x1b[2K\\r\\x00');
  });

  it('JUnit XML holds only characters XML 1.0 allows, and shows the others visibly', () => {
    const xml = suiteJunit(suite(NASTY, `boom ${NASTY}`), '/p');
    // XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
    expect(xml).not.toMatch(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
    expect(xml).toContain('n\\x1b[2K');
    expect(xml).toContain('\\u{ffff}');
    expect(xml).toContain('\\u{d800}');
  });

  it('the JSON report parses back to the same strings', () => {
    const r = suite(NASTY, NASTY);
    const json = JSON.parse(JSON.stringify(suiteJson(r, '/p')));
    expect(json.cases[0].name).toBe(NASTY);
  });
});

describe('file names that are not valid UTF-8', () => {
  it('are refused by name when listed, not collapsed into one', () => {
    fs.writeFileSync(Buffer.from(`${a.ws}/a\xff.txt`, 'latin1'), 'one');
    fs.writeFileSync(Buffer.from(`${a.ws}/a\xfe.txt`, 'latin1'), 'two');
    a.write('lister.aip', afterAll('local ok, err = pcall(aip.file.list, "*.txt") return tostring(ok) .. " " .. tostring(err)'));
    const out = new Simulator({ workspaceDir: a.ws }).run({ name: 'lister', baseDir: a.ws }).afterAll as string;
    expect(out).toMatch(/^false .*the file name 'a\\xf[ef]\.txt' in .* is not valid UTF-8/);
  });

  it('a write to a name holding the replacement character is refused, not planted beside the real file', () => {
    expect(() => writeChanges(a.ws, [[nodePath.join(a.ws, 'a\ufffd.txt'), Buffer.from('x')]])).toThrow(/not valid UTF-8/);
  });
});

describe('a too-deep YAML value', () => {
  it('fails with a short message that does not quote the input', () => {
    for (const n of [150, 300, 5000]) {
      a.write('y.aip', afterAll(`local s = string.rep("[", ${n}) .. "SECRETX" .. string.rep("]", ${n})\nlocal ok, e = pcall(aip.yaml.parse, s) return tostring(ok) .. " " .. type(e) .. " " .. tostring(e)`));
      const out = new Simulator({ workspaceDir: a.ws }).run({ name: 'y', baseDir: a.ws }).afterAll as string;
      expect(out, `depth ${n}`).toMatch(/^false \w+ aip\.yaml\.parse failed\. the value is nested (too deeply|deeper than)/);
      expect(out, `depth ${n}`).not.toContain('SECRETX');
      expect(out.length, `depth ${n}`).toBeLessThan(200);
    }
  });
});
