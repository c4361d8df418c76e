import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { htmlText, reportPage, scriptJson } from '../../src/report/page.ts';
import type { RunView } from '../../src/report/run-view.ts';

const HOSTILE = '</script><script>alert(1)</script><!-- {{SCRIPT}} {{DATA}} $& $1';

const run = (over: Partial<RunView> = {}): RunView => ({
  title: HOSTILE, status: 'completed', agent: 'a', ms: 1, parts: [], calls: [], ai: [], files: [], notApplied: [], warnings: [HOSTILE], ...over,
});

const scripts = (page: string) => [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));
const sha = (text: string) => createHash('sha256').update(text).digest('base64');

describe('scriptJson', () => {
  it('writes no `<`, so no text can end its block, and reads back the same', () => {
    const text = scriptJson({ s: HOSTILE });
    expect(text).not.toContain('<');
    expect(JSON.parse(text)).toEqual({ s: HOSTILE });
  });

  it('writes line separators and bidirectional overrides as escapes', () => {
    const text = scriptJson('a\u2028b\u202ec\u009b');
    expect(text).toBe('"a\\u2028b\\u202ec\\u009b"');
    expect(JSON.parse(text)).toBe('a\u2028b\u202ec\u009b');
  });
});

describe('htmlText', () => {
  it('escapes markup characters', () => {
    expect(htmlText(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });
});

describe('reportPage', () => {
  const page = reportPage({ kind: 'run', run: run() });

  it('holds exactly its data block and its own script, whatever the data says', () => {
    const found = scripts(page);
    expect(found.map((s) => s.attrs)).toEqual([' type="application/json" id="report-data"', '']);
    expect(JSON.parse(found[0]!.body)).toEqual({ kind: 'run', run: run() });
    expect(found[1]!.body).toContain("document.getElementById('report-data')");
  });

  it('allows no network and only its own script and style, by hash', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)?.[1]?.replace(/&#39;/g, "'");
    const script = scripts(page)[1]!.body;
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`script-src 'sha256-${sha(script)}'`);
    expect(csp).toContain(`style-src 'sha256-${sha(style)}'`);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('escapes the title', () => {
    expect(page).toContain('<title>&#60;/script&#62;&#60;script&#62;alert(1)');
  });

  it('puts each case run of a suite in its own block, by the case id', () => {
    const suite = { title: 's', passed: 0, failed: 0, skipped: 0, notRun: 0, errors: [], ms: 0, slowMs: 1000, agentsWithoutContract: [], cases: [] };
    const p = reportPage({ kind: 'suite', suite }, [run(), undefined, run({ title: 'third' })]);
    const blocks = scripts(p).filter((s) => / id="run-/.test(s.attrs));
    expect(blocks.map((b) => b.attrs)).toEqual([' type="application/json" id="run-0"', ' type="application/json" id="run-2"']);
    expect(JSON.parse(blocks[1]!.body).title).toBe('third');
  });
});
