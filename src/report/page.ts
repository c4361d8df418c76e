/**
 * One self-contained HTML file of a report: the page's markup, style and script (assets/, shipped in the package)
 * inline, its data as JSON blocks the script reads. Nothing is fetched: the Content-Security-Policy allows no
 * network and only the page's own script and style (by hash), so a report of untrusted content runs no script of
 * it even if a text escaped its block. The script draws every text with textContent, never as markup.
 */
import { createHash } from 'node:crypto';
import { readText } from '../support/host-fs.ts';
import { jsonText } from '../support/terminal-text.ts';
import type { RunView } from './run-view.ts';
import type { SuiteView } from './suite-view.ts';

export type PageData = { kind: 'run'; run: RunView } | { kind: 'suite'; suite: SuiteView };

const asset = (name: string) => readText(new URL(`./assets/${name}`, import.meta.url));

/**
 * JSON that cannot end its `<script>` block: every `<` is written as `\u003c`, and the controls JSON.stringify leaves
 * raw (C1, line separators, bidirectional overrides) as `\uXXXX` too, so the page's source shows no text it did not
 * write. JSON.parse reads it all back.
 */
export function scriptJson(value: unknown): string {
  return jsonText(value).replace(/</g, '\\u003c');
}

/** Text for HTML markup (the page's title). */
export function htmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const MARKER = /\{\{([A-Z]+)\}\}/g;

/** The template with each `{{NAME}}` replaced, in one pass: an inserted text is never read for markers itself. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(MARKER, (m: string, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`report template: no value for ${m}`);
    return v;
  });
}

/**
 * The page of `data`. `runs` (a suite): each case's run, by the case's id, each in its own JSON block that the
 * script parses only when the case is opened (a 10,000-case report stays quick to open).
 */
export function reportPage(data: PageData, runs: readonly (RunView | undefined)[] = []): string {
  const style = asset('report.css');
  const script = asset('report.js');
  const csp = `default-src 'none'; script-src ${sha256(script)}; style-src ${sha256(style)}; img-src data:; base-uri 'none'; form-action 'none'`;
  const blocks = runs.flatMap((r, i) => (r ? [`<script type="application/json" id="run-${i}">${scriptJson(r)}</script>`] : []));
  return fill(asset('report.html'), {
    CSP: htmlText(csp),
    TITLE: htmlText(data.kind === 'run' ? data.run.title : data.suite.title),
    STYLE: style,
    DATA: scriptJson(data),
    RUNS: blocks.join('\n'),
    SCRIPT: script,
  });
}
