import { caseLabel, type SuiteResult } from '../suite-result.ts';
import { relativeToCwd } from '../../support/paths.ts';
import { xmlText } from '../../support/terminal-text.ts';

// characters XML 1.0 cannot hold (ANSI escapes of a Lua error, NUL, lone surrogates) are shown as visible escapes
const xml = xmlText;

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The `--reporter junit` report: JUnit XML as CI systems read it (GitHub, GitLab, Jenkins, Azure). One
 * <testsuite> per case file, one <testcase> per case (name `<case> (<stage>)`, `<case> (<event>)` for an event-form case); a harness error is a
 * <testcase> with an <error>.
 */
export function suiteJunit(r: SuiteResult, cwd = process.cwd()): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = r.cases.reduce((t, c) => t + c.ms, 0);
  out.push(
    `<testsuites name="coder-subagents" tests="${r.cases.length + r.errors.length}" failures="${r.failed}" errors="${r.errors.length}" skipped="${r.skipped}" time="${seconds(total)}">`,
  );
  for (const f of r.files) {
    const name = xml(relativeToCwd(f.file, cwd));
    const failures = f.cases.filter((c) => c.status === 'failed').length;
    const skipped = f.cases.filter((c) => c.status === 'skipped').length;
    const time = f.cases.reduce((t, c) => t + c.ms, 0);
    out.push(`  <testsuite name="${name}" tests="${f.cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}">`);
    for (const c of f.cases) {
      const open = `    <testcase classname="${name}" name="${xml(`${c.name} (${caseLabel(c)})`)}" time="${seconds(c.ms)}"`;
      const body: string[] = [];
      if (c.status === 'skipped') body.push('      <skipped/>');
      if (c.status === 'failed') {
        const message = c.message ?? 'failed';
        body.push(`      <failure message="${xml(message.split('\n')[0])}">${xml(message)}</failure>`);
      }
      if (c.warnings.length > 0) body.push(`      <system-out>${xml(c.warnings.map((w) => `warning: ${w}`).join('\n'))}</system-out>`);
      out.push(body.length === 0 ? `${open}/>` : `${open}>\n${body.join('\n')}\n    </testcase>`);
    }
    out.push('  </testsuite>');
  }
  if (r.errors.length > 0) {
    out.push(`  <testsuite name="case files that could not run" tests="${r.errors.length}" failures="0" errors="${r.errors.length}" skipped="0" time="0.000">`);
    for (const e of r.errors) {
      const file = e.split(':')[0];
      out.push(`    <testcase classname="${xml(file)}" name="${xml(file)}" time="0.000">\n      <error message="${xml(e.split('\n')[0])}">${xml(e)}</error>\n    </testcase>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}
