/**
 * The HTML reports in a real browser: headless Chromium (Debian's `chromium`, which .ci/run installs) driven by
 * playwright-core. Real reports (the demo's run, a failing suite with hostile names, a 10,000-case suite) are
 * opened, clicked through and read back from the screen; a screenshot of each view goes to
 * test-output/report/ (gitignored). Without Chromium the tests are skipped and say why, except in CI (CI=true),
 * where a missing browser fails.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { manyCaseSuite } from '../helpers/report-suite.ts';
import { suiteHtml } from '../../src/harness/reporters/html.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// one folder per engine project: both run this file at once, and each starts by emptying its folder
export const SCREENS = nodePath.join(ROOT, 'test-output', 'report', process.env.CODER_SUBAGENTS_ENGINE ?? 'fengari');

/** The Chromium to drive: $CHROMIUM_PATH, else the first of Debian's names found on PATH. */
function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  }
  return undefined;
}

const CHROMIUM = findChromium();
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
if (!CHROMIUM && !IN_CI) console.warn('report browser tests: skipped: no chromium on PATH (apt-get install -y chromium, or set CHROMIUM_PATH)');

describe('the browser the report tests need', () => {
  it.runIf(IN_CI)('is installed in CI (.ci/run installs chromium): a missing one fails instead of skipping', () => {
    expect(CHROMIUM, 'chromium not found on PATH and CHROMIUM_PATH unset').toBeDefined();
  });
});

const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';

/** A failing suite: two of the fixture sub-agents, a case that fails with a diff, and one with a hostile name. */
function failingSuite(dir: string): void {
  const src = nodePath.join(ROOT, 'fixtures', 'sub-agents');
  for (const f of ['prompt-refiner.aip', 'instruction-clarifier.aip', 'prompt-refiner.contract.toml']) cpSync(nodePath.join(src, f), nodePath.join(dir, f));
  writeFileSync(
    nodePath.join(dir, 'instruction-clarifier.contract.toml'),
    [
      'agent = "instruction-clarifier.aip"',
      '',
      '[[case]]',
      'name = "adds the requirements (expects the wrong list)"',
      'stage = "pre"',
      'prompt = "make the login nicer"',
      'ai = ["1. Show a readable error."]',
      '[case.expect]',
      'prompts = ["make the login nicer", "Clarified requirements:\\n1. Show a friendly error."]',
      '',
      '[[case]]',
      `name = ${JSON.stringify(HOSTILE_NAME)}`,
      'stage = "pre"',
      `prompt = ${JSON.stringify(`clarify this ${HOSTILE_NAME}`)}`,
      `ai = [${JSON.stringify(`1. ${HOSTILE_NAME}`)}]`,
      '[case.expect]',
      'unchanged = true',
    ].join('\n'),
  );
}

describe.skipIf(!CHROMIUM)('HTML reports in Chromium', () => {
  let browser: Browser;
  let tmp: string;
  let demoReport: string;
  let suiteReport: string;
  let bigReport: string;
  const dialogs: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    rmSync(SCREENS, { recursive: true, force: true });
    mkdirSync(SCREENS, { recursive: true });
    tmp = mkdtempSync(nodePath.join(os.tmpdir(), 'report-browser-'));
    demoReport = nodePath.join(tmp, 'demo.html');
    const demo = await runCli(['run', '--ai', 'ai.toml', '--report', demoReport], nodePath.join(ROOT, 'fixtures', 'demo'));
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toContain('HTML report written to');
    const suiteDir = nodePath.join(tmp, 'suite');
    mkdirSync(suiteDir);
    failingSuite(suiteDir);
    suiteReport = nodePath.join(tmp, 'suite.html');
    const suite = await runCli(['test', '.', '--reporter', 'html', '--output-file', suiteReport], suiteDir);
    expect(suite.code, suite.stdout + suite.stderr).toBe(1);
    bigReport = nodePath.join(tmp, 'big.html');
    writeFileSync(bigReport, suiteHtml(manyCaseSuite(10_000), { cwd: tmp }));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  async function open(file: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    await page.goto(`file://${file}`);
    await page.waitForSelector('html[data-ready="true"]');
    return page;
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: nodePath.join(SCREENS, `${name}.png`) });

  it('the demo run: a timeline of stages whose sub-agent rows open their input, output and diffs', async () => {
    const page = await open(demoReport);
    await expect(page.locator('h1').textContent()).resolves.toMatch(/^pro@coder on /);
    const stages = await page.locator('.stage h3 > span:first-child').allTextContents();
    expect(stages.slice(0, 3)).toEqual(['BeforeAll', 'Data · task 1', 'Output · task 1']);
    expect(stages).toContain('AfterAll');
    const names = await page.locator('button.row.call .name').allTextContents();
    expect(names).toContain('my-agents/prompt-refiner.aip');
    expect(names).toContain('my-agents/run-summary.aip');
    await shot(page, 'run-timeline');

    await page.locator('button.row.call', { hasText: 'my-agents/prompt-refiner.aip' }).click();
    const detail = page.locator('aside.detail');
    await expect(detail.locator('h2').textContent()).resolves.toBe('my-agents/prompt-refiner.aip');
    // the diff is folded until asked for
    await expect(detail.locator('pre.diff').count()).resolves.toBe(0);
    await detail.locator('details[data-fold="prompt"] > summary').click();
    // the fold renders its diff when it opens: wait for it before reading it
    await detail.locator('pre.diff .add').first().waitFor();
    const added = await detail.locator('pre.diff .add').allTextContents();
    expect(added.join('')).toContain('Focus: input validation and display formatting');
    await expect(detail.locator('pre.diff .del').allTextContents()).resolves.toContain('-TODO: ask design about the wording of the error messages\n');
    await detail.locator('details[data-fold="input"] > summary').click();
    await expect(detail.locator('details[data-fold="input"] pre').textContent()).resolves.toContain('"coder_stage": "pre"');
    await shot(page, 'run-sub-agent-diff');
    await page.close();
  });

  it('the demo run: a model call shows its agent, model, files with sizes, prompt parts and tokens, and the totals', async () => {
    const page = await open(demoReport);
    await page.locator('button[role="tab"][data-tab="ai"]').click();
    const agents = await page.locator('.ai-panel tbody td:first-child').allTextContents();
    // the demo's model calls: its clarifier, the built-in auto-context (a code map per context file, then the pick),
    // the coder per task, and the two reviewers of its parallel group
    expect(agents).toEqual([
      'my-agents/instruction-clarifier.aip', 'pro@coder/code-map', 'pro@coder/code-map', 'pro@coder/code-map', 'pro@coder/auto-context',
      'pro@coder', 'pro@coder', 'my-agents/review.aip', 'my-agents/review.aip',
    ]);
    await page.locator('.ai-panel button.link', { hasText: /^pro@coder$/ }).first().click();
    const detail = page.locator('aside.detail');
    await expect(detail.locator('h2').textContent()).resolves.toBe('Model call: demo-model');
    const files = await detail.locator('table.grid:not(.sizes) tbody tr').allTextContents();
    expect(files.some((f) => f.startsWith('src/auth/login.tsWORKING_FILE'))).toBe(true);
    expect(files.some((f) => f.startsWith('docs/conventions.mdKNOWLEDGE_FILE'))).toBe(true);
    const sizes = await detail.locator('table.sizes tbody tr').allTextContents();
    expect(sizes[0]).toMatch(/^prompt[\d.]+ KB[\d,]+ tok$/);
    await detail.locator('details[data-fold="part-6"] > summary').click();
    await expect(detail.locator('details[data-fold="part-6"] pre').textContent()).resolves.toContain('My instruction:');
    const totals = await page.locator('table.totals tbody tr').allTextContents();
    expect(totals.at(-1)).toMatch(/^the run9/);
    await shot(page, 'run-ai-call');
    await page.close();
  });

  it('the demo run works from the keyboard and reads in the dark scheme', async () => {
    const page = await open(demoReport, 'dark');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bg).toBe('rgb(13, 17, 23)');
    const first = page.locator('button.row.call').first();
    await first.focus();
    await page.keyboard.press('Enter');
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('H2');
    await page.keyboard.press('Escape');
    await expect(page.evaluate(() => document.activeElement?.classList.contains('call'))).resolves.toBe(true);
    // the tabs follow the arrow keys
    await page.locator('button[role="tab"][data-tab="timeline"]').focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.locator('button[role="tab"][aria-selected="true"]').textContent()).resolves.toMatch(/^Model calls/);
    await page.keyboard.press('ArrowRight');
    await expect(page.locator('details.diff-fold').count()).resolves.toBeGreaterThan(0);
    await shot(page, 'run-files-dark');
    await page.close();
  });

  it('a failing suite: grouped by file and agent, the failure diff, a filter, and the case run opening', async () => {
    const page = await open(suiteReport);
    // the wrong list fails, and so does the hostile case (the clarifier changes its prompt)
    await expect(page.locator('.stats .failed-count').textContent()).resolves.toBe('2 failed');
    const groups = await page.locator('details.group > summary .file').allTextContents();
    expect(groups).toEqual(['instruction-clarifier.contract.toml', 'prompt-refiner.contract.toml']);
    // the group with the failure starts open; the hostile name is shown as text and ran nothing
    const names = await page.locator('details.group[open] .case .name').allTextContents();
    expect(names).toContain(HOSTILE_NAME);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await expect(page.locator('img').count()).resolves.toBe(0);

    await page.locator('.case.failed', { hasText: 'wrong list' }).click();
    const detail = page.locator('aside.detail');
    await expect(detail.locator('h3').first().textContent()).resolves.toBe('Why it failed');
    await expect(detail.locator('pre.message-text').textContent()).resolves.toMatch(/friendly error/);
    await expect(detail.textContent()).resolves.not.toMatch(/null|undefined/);
    await shot(page, 'suite-failing');

    await page.locator('#filter').fill('refiner');
    const refinerCases = (readFileSync(nodePath.join(tmp, 'suite', 'prompt-refiner.contract.toml'), 'utf8').match(/^\[\[case\]\]/gm) ?? []).length;
    await page.waitForFunction((n) => document.getElementById('shown')?.textContent === `${n} of ${n + 2} cases shown`, refinerCases);
    await expect(page.locator('details.group:not([hidden]) > summary .file').allTextContents()).resolves.toEqual(['prompt-refiner.contract.toml']);
    await shot(page, 'suite-filtered');
    await page.locator('#filter').fill('');
    await page.waitForFunction((n) => document.getElementById('shown')?.textContent === `${n + 2} of ${n + 2} cases shown`, refinerCases);

    await page.locator('.case.failed', { hasText: 'wrong list' }).click();
    await detail.locator('button.open-run').click();
    await expect(page.locator('#case-run h1').textContent()).resolves.toMatch(/› adds the requirements/);
    await expect(page.locator('#case-run button.row.call .name').allTextContents()).resolves.toEqual(['instruction-clarifier.aip']);
    await page.locator('#case-run button.row.call').click();
    await page.locator('#case-run details[data-fold="prompt"] > summary').click();
    await page.locator('#case-run pre.diff .add').first().waitFor();
    await expect(page.locator('#case-run pre.diff .add').allTextContents()).resolves.toContain('+Clarified requirements:\n');
    await shot(page, 'suite-case-run');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await expect(page.locator('#case-run').isHidden()).resolves.toBe(true);

    // the hostile case's run: its prompt and answer as text
    await page.locator('.case', { hasText: 'onerror' }).click();
    await detail.locator('button.open-run').click();
    await page.locator('#case-run button[role="tab"][data-tab="ai"]').click();
    await page.locator('#case-run .ai-panel button.link').first().click();
    await expect(page.locator('#case-run aside.detail details[data-fold="answer"] pre').textContent()).resolves.toBe(`1. ${HOSTILE_NAME}`);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
  });

  it('a 10,000-case suite opens with its groups folded, filters, and opens a case run from its block', async () => {
    expect(statSync(bigReport).size).toBeGreaterThan(0);
    const page = await open(bigReport);
    await page.waitForFunction(() => document.getElementById('shown')?.textContent === '10000 of 10000 cases shown');
    // only the first few groups with a failure start open, and a group draws a page of rows at a time
    expect(await page.locator('details.group[open]').count()).toBe(5);
    expect(await page.locator('.case').count()).toBe(500);
    await page.locator('#filter').fill('case 4242 ');
    await page.waitForFunction(() => document.getElementById('shown')?.textContent === '1 of 10000 cases shown');
    await page.locator('.case').first().click();
    await page.locator('aside.detail button.open-run').click();
    await expect(page.locator('#case-run h1').textContent()).resolves.toMatch(/case 4242 /);
    await shot(page, 'suite-10k-case');
    await page.close();
  });

  it('the screenshots are on disk', () => {
    for (const name of ['run-timeline', 'run-sub-agent-diff', 'run-ai-call', 'suite-failing', 'suite-case-run']) {
      expect(existsSync(nodePath.join(SCREENS, `${name}.png`)), name).toBe(true);
      expect(readFileSync(nodePath.join(SCREENS, `${name}.png`)).subarray(1, 4).toString()).toBe('PNG');
    }
  });
});
