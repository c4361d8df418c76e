import { describe, expect, it } from 'vitest';
import { suiteJunit } from '../../../src/harness/reporters/junit.ts';
import { CWD, sampleSuite } from '../../helpers/suite-result.ts';

describe('the JUnit report', () => {
  it('one testsuite per case file, one testcase per case, the harness errors as errors; markup escaped', () => {
    const xml = suiteJunit(sampleSuite(), CWD);
    expect(xml.split('\n')).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<testsuites name="coder-subagents" tests="4" failures="1" errors="1" skipped="1" time="1.512">',
      '  <testsuite name="agents/a.contract.toml" tests="2" failures="1" errors="0" skipped="0" time="1.512">',
      '    <testcase classname="agents/a.contract.toml" name="keeps the prompt (pre)" time="0.012"/>',
      '    <testcase classname="agents/a.contract.toml" name="drops &lt;debug&gt; &amp; &quot;noise&quot; (post_task)" time="1.500">',
      '      <failure message="prompts differ">prompts differ&#10;  - x&#10;  + y</failure>',
      '    </testcase>',
      '  </testsuite>',
      '  <testsuite name="agents/b.contract.toml" tests="1" failures="0" errors="0" skipped="1" time="0.000">',
      '    <testcase classname="agents/b.contract.toml" name="later (pre)" time="0.000">',
      '      <skipped/>',
      '      <system-out>warning: unused key</system-out>',
      '    </testcase>',
      '  </testsuite>',
      '  <testsuite name="case files that could not run" tests="1" failures="0" errors="1" skipped="0" time="0.000">',
      '    <testcase classname="agents/c.contract.toml" name="agents/c.contract.toml" time="0.000">',
      "      <error message=\"agents/c.contract.toml: case #1: unknown key 'x'\">agents/c.contract.toml: case #1: unknown key 'x'</error>",
      '    </testcase>',
      '  </testsuite>',
      '</testsuites>',
      '',
    ].join('\n').split('\n'));
  });

  it('writes characters XML cannot hold as visible escapes', () => {
    const r = sampleSuite();
    r.files[0].cases[1] = { ...r.files[0].cases[1], message: 'lua\u001b[31m error\u0000' };
    expect(suiteJunit(r, CWD)).toContain('<failure message="lua\\x1b[31m error\\x00">');
  });

  it('names an event-form case by its event', () => {
    const r = sampleSuite();
    r.files[0]!.cases = [{ ...r.files[0]!.cases[0]!, event: 'start' }];
    expect(suiteJunit(r, CWD)).toContain('<testcase classname="agents/a.contract.toml" name="keeps the prompt (start)" time="0.012"/>');
  });
});
