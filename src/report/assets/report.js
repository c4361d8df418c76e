// The script of a coder-subagents HTML report (page.ts puts it inline). It draws the data of the
// #report-data block: a run (timeline, calls, model calls, files) or a suite (cases by file and agent, each case's
// run in its own #run-N block, parsed when the case is opened). Every text goes in through textContent: the data
// is never read as markup.
(() => {
  'use strict';

  const data = JSON.parse(document.getElementById('report-data').textContent);
  const app = document.getElementById('app');

  // ---- small helpers ----------------------------------------------------------------------------------------

  /** An element: attributes (on* become listeners, `text` its text), then children (strings are text nodes). */
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') el.textContent = String(v);
      else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === undefined || kid === null || kid === false) continue;
      el.append(typeof kid === 'string' || typeof kid === 'number' ? document.createTextNode(String(kid)) : kid);
    }
    return el;
  }

  const ms = (n) => (n === undefined || n === null ? '' : n < 1000 ? `${n.toFixed(1)} ms` : `${(n / 1000).toFixed(2)} s`);
  const bytes = (n) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(2)} MB`);
  const count = (n, one, many) => `${n} ${n === 1 ? one : many || one + 's'}`;
  const tokens = (n) => (n === undefined ? '' : `${n.toLocaleString('en')} tok`);

  /** A folded block whose content is made the first time it is opened. */
  function lazy(summary, render, opts) {
    const d = h('details', { class: (opts && opts.class) || 'fold', 'data-fold': opts && opts.name });
    d.append(h('summary', {}, summary));
    let done = false;
    d.addEventListener('toggle', () => {
      if (d.open && !done) {
        done = true;
        d.append(render());
      }
    });
    if (opts && opts.open) d.open = true;
    return d;
  }

  /** Diff lines, each coloured by its first character. */
  function diffBlock(lines) {
    const pre = h('pre', { class: 'diff', tabindex: 0 });
    for (const l of lines) {
      const kind = l.startsWith('@@') ? 'hunk' : l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : 'ctx';
      pre.append(h('span', { class: kind, text: l + '\n' }));
    }
    return pre;
  }

  const textBlock = (text) => h('pre', { class: 'text', tabindex: 0, text });

  const badge = (status) => h('span', { class: `badge ${status}`, text: status });

  function bar(value, max, cls) {
    const outer = h('span', { class: `bar ${cls || ''}`, 'aria-hidden': 'true' });
    const inner = h('span');
    inner.style.width = `${max > 0 ? Math.max(1, Math.round((value / max) * 100)) : 0}%`;
    outer.append(inner);
    return outer;
  }

  /** Buttons of one tab list, each showing its panel; arrows move between them. */
  function tabs(entries, onShow) {
    const list = h('div', { class: 'tabs', role: 'tablist' });
    const buttons = entries.map(([key, label], i) =>
      h('button', { type: 'button', role: 'tab', id: `tab-${key}`, 'data-tab': key, 'aria-selected': i === 0 ? 'true' : 'false', tabindex: i === 0 ? 0 : -1, onclick: () => select(i) }, label),
    );
    function select(i) {
      buttons.forEach((b, j) => {
        b.setAttribute('aria-selected', i === j ? 'true' : 'false');
        b.tabIndex = i === j ? 0 : -1;
      });
      onShow(entries[i][0]);
    }
    list.addEventListener('keydown', (ev) => {
      const at = buttons.indexOf(document.activeElement);
      if (at < 0) return;
      const to = ev.key === 'ArrowRight' ? (at + 1) % buttons.length : ev.key === 'ArrowLeft' ? (at - 1 + buttons.length) % buttons.length : -1;
      if (to < 0) return;
      ev.preventDefault();
      buttons[to].focus();
      select(to);
    });
    list.append(...buttons);
    return list;
  }

  // ---- a run ------------------------------------------------------------------------------------------------

  /** Draws a run's report into `root`; `back` (a suite's case) adds a button that closes it. */
  function renderRun(run, root, back) {
    root.replaceChildren();
    const maxMs = Math.max(1, ...run.calls.map((c) => c.ms), ...run.ai.map((a) => a.ms));
    const total = (run.totals || []).find((t) => t.agent === '*');
    const head = h(
      'header',
      { class: 'run-head' },
      back ? h('button', { type: 'button', class: 'back', onclick: back.close }, '← Back to the suite') : null,
      h('h1', { text: run.title }),
      h(
        'p',
        { class: 'stats' },
        badge(run.status),
        h('span', { text: `${run.agent} · ${ms(run.ms)}` }),
        h('span', { text: count(run.calls.length, 'agent call') }),
        h('span', { text: count(run.ai.length, 'model call') }),
        total ? h('span', { text: `${bytes(total.promptBytes)} sent (${tokens(total.promptTokens)}), ${bytes(total.answerBytes)} answered (${tokens(total.answerTokens)})` }) : null,
        h('span', { text: count(run.files.length, 'file') + ' changed' }),
      ),
      run.message ? h('p', { class: `message ${run.status}`, text: run.message }) : null,
    );
    const detail = h('aside', { class: 'detail', 'aria-label': 'Details', tabindex: -1 }, h('p', { class: 'hint', text: 'Choose a row of the timeline (or a model call, a file) to see it here.' }));
    const panel = h('div', { class: 'panel', role: 'tabpanel' });
    let opener = null;
    const show = (el, from) => {
      opener = from || document.activeElement;
      detail.replaceChildren(el);
      detail.querySelectorAll('.selected').forEach((s) => s.classList.remove('selected'));
      root.querySelectorAll('.row.selected, .lane.selected').forEach((s) => s.classList.remove('selected'));
      if (opener && opener.classList) opener.classList.add('selected');
      const title = detail.querySelector('h2');
      if (title) {
        title.tabIndex = -1;
        title.focus({ preventScroll: false });
      }
    };
    detail.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && opener && opener.focus) {
        ev.stopPropagation();
        opener.focus();
      }
    });
    const views = {
      timeline: () => timeline(run, maxMs, show),
      ai: () => aiTable(run, show),
      files: () => filesPanel(run),
      problems: () => problemsPanel(run),
    };
    const problems = run.notApplied.length + run.warnings.length;
    const tabList = tabs(
      [
        ['timeline', 'Timeline'],
        ['ai', `Model calls (${run.ai.length})`],
        ['files', `Files (${run.files.length})`],
        ['problems', `Not applied & warnings (${problems})`],
      ],
      (key) => panel.replaceChildren(views[key]()),
    );
    panel.append(views.timeline());
    root.append(head, tabList, h('div', { class: 'run-grid' }, panel, detail));
  }

  function timeline(run, maxMs, show) {
    const out = h('div', { class: 'timeline' });
    if (run.parts.length === 0) out.append(h('p', { class: 'hint', text: 'Nothing was traced for this run.' }));
    for (const part of run.parts) {
      const box = h('section', { class: part.redo ? 'run-part redo' : 'run-part', 'aria-label': part.redo ? `Redo run ${part.redo}` : 'First run' });
      if (run.parts.length > 1 || part.redo) box.append(h('h2', { class: 'part-title', text: part.redo ? `Redo run ${part.redo}` : 'First run' }));
      for (const s of part.sections) {
        const title = s.stage + (s.task !== undefined ? ` · task ${s.task}` : '');
        const sec = h('section', { class: 'stage' }, h('h3', {}, h('span', { text: title }), s.ms !== undefined ? h('span', { class: 'dim', text: ms(s.ms) }) : null, s.error ? h('span', { class: 'err', text: s.error }) : null));
        const list = h('ol', { class: 'rows' });
        for (const r of s.rows) list.append(h('li', {}, row(run, r, maxMs, show)));
        if (s.rows.length === 0) list.append(h('li', { class: 'dim', text: 'no event' }));
        sec.append(list);
        box.append(sec);
      }
      out.append(box);
    }
    return out;
  }

  function row(run, r, maxMs, show) {
    if (r.t === 'call') {
      const c = run.calls[r.call];
      const mark = c.error ? '✗' : '✓';
      const button = h(
        'button',
        { type: 'button', class: `row call${c.error ? ' failed' : ''}`, 'data-call': r.call, onclick: (ev) => show(callDetail(run, r.call, show), ev.currentTarget) },
        h('span', { class: 'mark', 'aria-label': c.error ? 'failed' : 'ok', text: mark }),
        c.stage ? h('span', { class: 'tag', text: c.stage + (c.task !== undefined ? ` #${c.task}` : '') }) : null,
        h('span', { class: 'name', text: c.agent }),
        h('span', { class: 'summary' }, c.ai.length ? h('span', { class: 'ai-count', text: `AI ×${c.ai.length}` }) : null, c.summary),
        bar(c.ms, maxMs),
        h('span', { class: 'ms', text: ms(c.ms) }),
      );
      if (!c.lanes) return button;
      const lanes = h('div', { class: 'lanes', role: 'group', 'aria-label': `${c.agent}: members side by side` });
      lanes.style.gridTemplateColumns = `repeat(${Math.max(1, c.lanes.length)}, minmax(9rem, 1fr))`;
      c.lanes.forEach((l, i) =>
        lanes.append(
          h(
            'button',
            { type: 'button', class: `lane${l.error ? ' failed' : ''}`, 'data-lane': i, onclick: (ev) => show(laneDetail(run, r.call, i, show), ev.currentTarget) },
            h('span', { class: 'name', text: `[${l.index}] ${l.agent}` }),
            h('span', { class: 'dim', text: l.error ? `failed: ${l.error}` : l.models.length ? l.models.join(', ') : 'no model call' }),
            bar(l.ms, maxMs),
            h('span', { class: 'ms', text: ms(l.ms) }),
          ),
        ),
      );
      return h('div', { class: 'group' }, button, lanes);
    }
    if (r.t === 'ai') {
      const a = run.ai[r.ai];
      return h(
        'button',
        { type: 'button', class: 'row ai', 'data-ai': r.ai, onclick: (ev) => show(aiDetail(run, r.ai), ev.currentTarget) },
        h('span', { class: 'mark', text: 'AI' }),
        h('span', { class: 'tag', text: `task ${a.task}` }),
        h('span', { class: 'name', text: a.model }),
        h('span', { class: 'summary', text: `${bytes(a.promptBytes)} sent ${tokens(a.promptTokens)} · ${bytes(a.answerBytes)} answered` }),
        bar(a.ms, maxMs, 'ai'),
        h('span', { class: 'ms', text: ms(a.ms) }),
      );
    }
    if (r.t === 'pin') return h('div', { class: 'row pin' }, h('span', { class: 'mark', text: 'pin' }), h('span', { class: 'tag', text: r.iden }), h('span', { class: 'summary wrap', text: r.text }));
    if (r.t === 'warning') return h('div', { class: 'row warning' }, h('span', { class: 'mark', text: '⚠' }), h('span', { class: 'summary wrap', text: r.text }));
    if (r.t === 'file') return h('div', { class: 'row file' }, h('span', { class: 'mark', text: r.op }), h('span', { class: 'summary', text: r.path }), h('span', { class: 'dim', text: r.agent }));
    return h('div', { class: 'row print' }, h('span', { class: 'mark', text: '›' }), h('span', { class: 'summary wrap', text: r.text }));
  }

  function aiButtons(run, list, show) {
    if (list.length === 0) return h('p', { class: 'dim', text: 'No model call.' });
    return h(
      'ul',
      { class: 'links' },
      list.map((i) => {
        const a = run.ai[i];
        return h('li', {}, h('button', { type: 'button', class: 'link', 'data-ai': i, onclick: (ev) => show(aiDetail(run, i), ev.currentTarget) }, `${a.agent} · ${a.model} · ${bytes(a.promptBytes)} · ${tokens(a.promptTokens)}`));
      }),
    );
  }

  function callDetail(run, i, show) {
    const c = run.calls[i];
    const changes = [
      ['params', 'Params (coder_params)'],
      ['prompt', 'Prompt (instruction)'],
      ['answer', 'AI answer (coder_response)'],
    ].filter(([k]) => c.diffs[k].length > 0);
    return h(
      'div',
      { class: 'call-detail' },
      h('h2', { text: c.agent }),
      h('p', { class: 'stats' }, badge(c.error ? 'failed' : 'ok'), c.stage ? h('span', { text: `stage ${c.stage}` }) : null, c.task !== undefined ? h('span', { text: `task ${c.task}` }) : null, c.redo ? h('span', { text: `redo ${c.redo}` }) : null, h('span', { text: ms(c.ms) })),
      h('p', { class: 'summary-line', text: c.summary }),
      c.error ? textBlock(c.error) : null,
      h('h3', { text: 'What it changed' }),
      changes.length === 0 ? h('p', { class: 'dim', text: 'No change to the params, the prompt or the answer.' }) : changes.map(([k, label]) => lazy(`${label}: ${count(c.diffs[k].filter((l) => /^[+-]/.test(l)).length, 'changed line')}`, () => diffBlock(c.diffs[k]), { class: 'fold diff-fold', name: k })),
      c.lanes ? h('h3', { text: 'Members' }) : null,
      c.lanes ? h('ul', { class: 'links' }, c.lanes.map((l, j) => h('li', {}, h('button', { type: 'button', class: 'link', onclick: (ev) => show(laneDetail(run, i, j, show), ev.currentTarget) }, `[${l.index}] ${l.agent} · ${ms(l.ms)}${l.error ? ' · failed' : ''}`)))) : null,
      h('h3', { text: 'Input and output' }),
      lazy('Input it was given', () => textBlock(c.input), { name: 'input' }),
      lazy('What it returned', () => textBlock(c.output), { name: 'output' }),
      h('h3', { text: 'Its model calls' }),
      aiButtons(run, c.ai, show),
    );
  }

  function laneDetail(run, i, j, show) {
    const l = run.calls[i].lanes[j];
    return h(
      'div',
      {},
      h('h2', { text: `[${l.index}] ${l.agent}` }),
      h('p', { class: 'stats' }, badge(l.error ? 'failed' : 'ok'), h('span', { text: `member of ${run.calls[i].agent}` }), h('span', { text: ms(l.ms) })),
      l.error ? textBlock(l.error) : null,
      h('h3', { text: 'Its model calls' }),
      aiButtons(run, l.ai, show),
    );
  }

  function aiDetail(run, i) {
    const a = run.ai[i];
    const files = a.files.length
      ? h('table', { class: 'grid' }, h('thead', {}, h('tr', {}, h('th', { text: 'file' }), h('th', { text: 'carried as' }), h('th', { text: 'size' }))), h('tbody', {}, a.files.map((f) => h('tr', {}, h('td', { text: f.path }), h('td', { text: f.kind }), h('td', { class: 'num', text: bytes(f.bytes) })))))
      : h('p', { class: 'dim', text: 'No file or attachment.' });
    return h(
      'div',
      { class: 'ai-detail' },
      h('h2', { text: `Model call: ${a.model}` }),
      h('p', { class: 'stats' }, h('span', { text: a.agent }), h('span', { text: `task ${a.task}` }), h('span', { text: ms(a.ms) })),
      h(
        'table',
        { class: 'grid sizes' },
        h('thead', {}, h('tr', {}, h('th', {}), h('th', { text: 'bytes' }), h('th', { text: 'est. tokens' }))),
        h('tbody', {}, h('tr', {}, h('th', { text: 'prompt' }), h('td', { class: 'num', text: bytes(a.promptBytes) }), h('td', { class: 'num', text: tokens(a.promptTokens) })), h('tr', {}, h('th', { text: 'answer' }), h('td', { class: 'num', text: bytes(a.answerBytes) }), h('td', { class: 'num', text: tokens(a.answerTokens) }))),
      ),
      h('h3', { text: 'Files and attachments' }),
      files,
      h('h3', { text: `Prompt (${count(a.parts.length, 'part')})` }),
      a.parts.map((p, k) => lazy(`${k + 1}. ${p.role}${p.cache ? ' (cache)' : ''} · ${bytes(p.bytes)} · ${tokens(p.tokens)}`, () => textBlock(p.content), { name: `part-${k}` })),
      h('h3', { text: 'Answer' }),
      lazy(`answer · ${bytes(a.answerBytes)} · ${tokens(a.answerTokens)}`, () => textBlock(a.answer), { name: 'answer', open: true }),
    );
  }

  function aiTable(run, show) {
    const out = h('div', { class: 'ai-panel' });
    if (run.ai.length === 0) return h('p', { class: 'hint', text: 'No model call in this run.' });
    out.append(
      h(
        'table',
        { class: 'grid' },
        h('thead', {}, h('tr', {}, ['agent', 'model', 'task', 'sent', 'tokens', 'answered', 'tokens', 'time'].map((t) => h('th', { text: t })))),
        h(
          'tbody',
          {},
          run.ai.map((a, i) =>
            h(
              'tr',
              {},
              h('td', {}, h('button', { type: 'button', class: 'link', 'data-ai': i, onclick: (ev) => show(aiDetail(run, i), ev.currentTarget) }, a.agent)),
              h('td', { text: a.model }),
              h('td', { class: 'num', text: a.task }),
              h('td', { class: 'num', text: bytes(a.promptBytes) }),
              h('td', { class: 'num', text: tokens(a.promptTokens) }),
              h('td', { class: 'num', text: bytes(a.answerBytes) }),
              h('td', { class: 'num', text: tokens(a.answerTokens) }),
              h('td', { class: 'num', text: ms(a.ms) }),
            ),
          ),
        ),
      ),
    );
    if (run.totals && run.totals.length) {
      out.append(
        h('h3', { text: 'Totals per agent and for the run' }),
        h(
          'table',
          { class: 'grid totals' },
          h('thead', {}, h('tr', {}, ['agent', 'model calls', 'sent', 'tokens', 'answered', 'tokens'].map((t) => h('th', { text: t })))),
          h(
            'tbody',
            {},
            run.totals.map((t) =>
              h('tr', { class: t.agent === '*' ? 'total' : '' }, h('th', { text: t.agent === '*' ? 'the run' : t.agent }), h('td', { class: 'num', text: t.aiCalls }), h('td', { class: 'num', text: bytes(t.promptBytes) }), h('td', { class: 'num', text: tokens(t.promptTokens) }), h('td', { class: 'num', text: bytes(t.answerBytes) }), h('td', { class: 'num', text: tokens(t.answerTokens) })),
            ),
          ),
        ),
      );
    }
    return out;
  }

  function filesPanel(run) {
    if (run.files.length === 0) return h('p', { class: 'hint', text: 'The run changed no file.' });
    return h(
      'div',
      { class: 'files' },
      run.files.map((f) => lazy(h('span', {}, h('span', { class: `badge ${f.status}`, text: f.status }), ` ${f.path} · ${bytes(f.bytes)}`), () => (f.diff.length ? diffBlock(f.diff) : h('p', { class: 'dim', text: 'empty' })), { class: 'fold diff-fold', name: f.path })),
    );
  }

  function problemsPanel(run) {
    const out = h('div', { class: 'problems' });
    out.append(h('h3', { text: 'Changes not applied' }));
    out.append(run.notApplied.length ? h('ul', {}, run.notApplied.map((f) => h('li', {}, h('code', { text: f.file }), ': ', f.cause))) : h('p', { class: 'dim', text: 'Every change of the answers was applied.' }));
    out.append(h('h3', { text: 'Warnings' }));
    out.append(run.warnings.length ? h('ul', {}, run.warnings.map((w) => h('li', { text: w }))) : h('p', { class: 'dim', text: 'No warning.' }));
    return out;
  }

  // ---- a suite ----------------------------------------------------------------------------------------------

  const PAGE = 200; // rows drawn at a time in a group
  const OPEN_FAILED = 5; // groups with a failure open at the start

  function renderSuite(suite) {
    const root = h('main', { id: 'main' });
    const runBox = h('div', { class: 'case-run', id: 'case-run', hidden: true });
    const groups = new Map();
    for (const c of suite.cases) {
      const key = `${c.file}\u0000${c.agent}`;
      if (!groups.has(key)) groups.set(key, { file: c.file, agent: c.agent, cases: [] });
      groups.get(key).cases.push(c);
      c.search = `${c.file} ${c.agent} ${c.name} ${c.stage} ${c.status}${c.slow ? ' slow' : ''}`.toLowerCase();
    }
    const filter = h('input', { type: 'search', id: 'filter', placeholder: 'Filter by file, agent, name, stage, status (press /)', 'aria-label': 'Filter cases', autocomplete: 'off' });
    const status = h('select', { id: 'status', 'aria-label': 'Show' }, ['all', 'failed', 'passed', 'skipped', 'slow'].map((s) => h('option', { value: s, text: s === 'all' ? 'all cases' : s })));
    const shown = h('span', { class: 'dim', id: 'shown', 'aria-live': 'polite' });
    const list = h('div', { class: 'groups' });
    const detail = h('aside', { class: 'detail', 'aria-label': 'Case', tabindex: -1 }, h('p', { class: 'hint', text: 'Choose a case to see its failure, its warnings and its run.' }));
    let opener = null;

    const matches = (c, q, s) => (!q || c.search.includes(q)) && (s === 'all' || (s === 'slow' ? c.slow : c.status === s));

    function caseButton(c) {
      return h(
        'button',
        { type: 'button', class: `case ${c.status}`, 'data-case': c.id, onclick: (ev) => openCase(c, ev.currentTarget) },
        h('span', { class: 'mark', 'aria-label': c.status, text: c.status === 'passed' ? '✓' : c.status === 'failed' ? '✗' : '–' }),
        h('span', { class: 'name', text: c.name }),
        h('span', { class: 'tag', text: c.stage }),
        c.slow ? h('span', { class: 'badge slow', text: 'slow' }) : null,
        h('span', { class: 'ms', text: c.status === 'skipped' ? '' : ms(c.ms) }),
      );
    }

    function drawGroup(g, cases) {
      g.list.replaceChildren();
      const draw = (from) => {
        for (const c of cases.slice(from, from + PAGE)) g.list.append(h('li', {}, caseButton(c)));
        if (cases.length > from + PAGE) {
          const more = h('li', {}, h('button', { type: 'button', class: 'link more', onclick: () => { more.remove(); draw(from + PAGE); } }, `Show ${Math.min(PAGE, cases.length - from - PAGE)} more of ${cases.length - from - PAGE}`));
          g.list.append(more);
        }
      };
      draw(0);
    }

    const groupEls = [];
    for (const g of groups.values()) {
      const failed = g.cases.filter((c) => c.status === 'failed').length;
      const passed = g.cases.filter((c) => c.status === 'passed').length;
      g.list = h('ol', { class: 'cases' });
      g.counts = h('span', { class: 'counts' });
      g.el = h('details', { class: `group${failed ? ' has-failed' : ''}` }, h('summary', {}, h('span', { class: 'file', text: g.file }), h('span', { class: 'dim', text: ` › ${g.agent}` }), ' ', g.counts), g.list);
      g.summaryText = `✓ ${passed}${failed ? ` ✗ ${failed}` : ''}`;
      g.el.addEventListener('toggle', () => {
        if (g.el.open && !g.drawn) apply(false, g);
      });
      groupEls.push(g);
      list.append(g.el);
    }

    let timer = 0;
    function apply(openMatches, only) {
      const q = filter.value.trim().toLowerCase();
      const s = status.value;
      let n = 0;
      for (const g of only ? [only] : groupEls) {
        const cases = g.cases.filter((c) => matches(c, q, s));
        n += cases.length;
        g.el.hidden = cases.length === 0;
        g.counts.textContent = q || s !== 'all' ? `${cases.length} of ${g.cases.length}` : g.summaryText;
        if (openMatches && (q || s !== 'all') && cases.length > 0) g.el.open = true;
        if (g.el.open) {
          drawGroup(g, cases);
          g.drawn = true;
        } else g.drawn = false;
      }
      if (!only) shown.textContent = `${n} of ${suite.cases.length} cases shown`;
    }
    filter.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => apply(true), 120);
    });
    status.addEventListener('change', () => apply(true));
    document.addEventListener('keydown', (ev) => {
      if (ev.key === '/' && runBox.hidden && !(document.activeElement instanceof HTMLInputElement || document.activeElement instanceof HTMLSelectElement)) {
        ev.preventDefault();
        filter.focus();
      } else if (ev.key === 'Escape' && !runBox.hidden) closeRun();
    });

    function openCase(c, from) {
      opener = from;
      list.querySelectorAll('.case.selected').forEach((s) => s.classList.remove('selected'));
      from.classList.add('selected');
      const hasRun = c.run && document.getElementById(`run-${c.id}`);
      detail.replaceChildren(
        ...[
        h('h2', { tabindex: -1, text: c.name }),
        h('p', { class: 'stats' }, badge(c.status), h('span', { text: c.stage }), h('span', { text: c.status === 'skipped' ? '' : ms(c.ms) }), c.slow ? h('span', { class: 'badge slow', text: 'slow' }) : null),
        h('p', { class: 'dim' }, h('span', { text: c.file }), ' › ', h('span', { text: c.agent })),
        c.message ? h('h3', { text: c.status === 'failed' ? 'Why it failed' : 'Message' }) : null,
        c.message ? messageBlock(c.message) : null,
        c.warnings.length ? h('h3', { text: 'Warnings' }) : null,
        c.warnings.length ? h('ul', {}, c.warnings.map((w) => h('li', { text: w }))) : null,
        hasRun ? h('button', { type: 'button', class: 'open-run', onclick: () => openRun(c) }, 'Open its run: timeline, calls, model calls') : h('p', { class: 'dim', text: 'This case has no run to show.' }),
        ].filter(Boolean),
      );
      detail.querySelector('h2').focus();
    }

    function openRun(c) {
      const run = JSON.parse(document.getElementById(`run-${c.id}`).textContent);
      root.hidden = true;
      runBox.hidden = false;
      renderRun(run, runBox, { close: closeRun });
      runBox.querySelector('h1').tabIndex = -1;
      runBox.querySelector('h1').focus();
    }

    function closeRun() {
      runBox.hidden = true;
      runBox.replaceChildren();
      root.hidden = false;
      if (opener) opener.focus();
    }

    detail.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && opener) opener.focus();
    });

    const total = suite.passed + suite.failed + suite.skipped;
    root.append(
      h(
        'header',
        { class: 'run-head' },
        h('h1', { text: suite.title }),
        h(
          'p',
          { class: 'stats' },
          badge(suite.failed || suite.errors.length ? 'failed' : 'passed'),
          h('span', { class: 'passed-count', text: `${suite.passed} passed` }),
          h('span', { class: 'failed-count', text: `${suite.failed} failed` }),
          suite.skipped ? h('span', { text: `${suite.skipped} skipped` }) : null,
          suite.notRun ? h('span', { text: `${suite.notRun} not run` }) : null,
          h('span', { text: `${count(total, 'case')} · ${ms(suite.ms)} · slow from ${ms(suite.slowMs)}` }),
        ),
        suite.errors.length ? h('div', { class: 'errors' }, h('h2', { text: 'Case files that could not run' }), h('ul', {}, suite.errors.map((e) => h('li', {}, textBlock(e))))) : null,
        suite.agentsWithoutContract.length ? h('p', { class: 'dim', text: `No case file (not tested): ${suite.agentsWithoutContract.join(', ')}` }) : null,
      ),
      h('div', { class: 'controls' }, filter, status, shown),
      h('div', { class: 'run-grid' }, list, detail),
    );
    app.replaceChildren(root, runBox);
    // the first groups with a failure start open (a few: a big suite's page must not draw thousands of rows)
    groupEls.filter((g) => g.cases.some((c) => c.status === 'failed')).slice(0, OPEN_FAILED).forEach((g) => (g.el.open = true));
    apply(false);
  }

  /** A failure message: lines of an expected/actual diff coloured, the rest as text. */
  function messageBlock(text) {
    const pre = h('pre', { class: 'diff message-text', tabindex: 0 });
    for (const l of text.split('\n')) {
      const t = l.trimStart();
      const kind = /^(\+|expected\b)/.test(t) ? 'add' : /^(-|actual\b|got\b)/.test(t) ? 'del' : 'ctx';
      pre.append(h('span', { class: kind, text: l + '\n' }));
    }
    return pre;
  }

  // ---- start ------------------------------------------------------------------------------------------------

  if (data.kind === 'suite') renderSuite(data.suite);
  else {
    const main = h('main', { id: 'main' });
    app.replaceChildren(main);
    renderRun(data.run, main);
  }
  document.documentElement.setAttribute('data-ready', 'true');
})();
