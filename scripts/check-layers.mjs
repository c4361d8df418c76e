// Fails (exit 1) when an import in src/ runs upward or in a circle, when a comment or doc points at a document
// outside the repository, or when one names a repository path that does not exist. Run by `npm test` before the
// test runner; `node scripts/check-layers.mjs [ROOT]`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The layers, bottom first (docs/architecture.md). A file may import its own folder or a folder of a lower
 * layer; folders of one layer do not import each other. `index` is src/index.ts, the library's entry.
 */
export const LAYERS = [
  ['support'],
  ['contract', 'isolate'],
  ['engine', 'pack'],
  ['aip'],
  ['runtime'],
  ['effects'],
  ['report'],
  ['check', 'harness'],
  ['cli'],
  ['index'],
];

const RANK = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));
const SOURCE = /\.(ts|mts|mjs|js)$/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** What must not appear in the repository: pointers at documents outside it, and issue or attack numbers. */
export const OUTSIDE_REFERENCE = /RUNTIME\.md|PRO_CODER\.md|LUA_ENGINES\.md|\.\.\/shared|shared\/spec|\b[Ii]ssue [0-9]+|[Aa]ttack [0-9]+/;
const REFERENCE_PLACES = ['src', 'lua', 'pack', 'test', 'bench', 'scripts', 'docs', 'README.md'];

/**
 * A repository path named in prose: a top folder of the repository, then a file with an extension. Not when it
 * is part of a longer path or a quoted value (an example), nor when an `owner/repo` names another repository.
 */
const TOP_FOLDERS = ['src', 'test', 'docs', 'lua', 'pack', 'scripts', 'bench', 'fixtures', 'lua-types'];
const NAMED_PATH = new RegExp(
  `(?<![\\w@./"'=-])(?<!\\b[\\w.-]+/[\\w.-]+ )((?:${TOP_FOLDERS.join('|')})/[\\w@./-]*\\.(?:ts|mts|mjs|js|lua|aip|md|toml|json|hbs))(?![\\w/-])`,
  'g',
);
/** A line naming another project's repository (owner/repo) lists that repository's paths, and so may the next. */
const UPSTREAM_REPO = /\b(?:aipack-ai|fengari-lua|ceifa)\/[\w.-]+/;
/** Where comments and docs are read for paths: the prose of src/ and lua/ code, and the docs outside code blocks. */
const PATH_PLACES = [
  { place: 'src', keep: (n) => /\.(ts|mjs|lua)$/.test(n) },
  { place: 'lua', keep: (n) => n.endsWith('.lua') },
  { place: 'docs', keep: (n) => n.endsWith('.md') },
  { place: 'README.md', keep: () => true },
];

/** The comments of a source file (Lua `--`, JS `//` and block comments), or a doc's text outside ``` blocks; lines kept. */
export function proseOf(file, text) {
  if (file.endsWith('.md')) {
    let fenced = false;
    return text
      .split('\n')
      .map((line) => {
        if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
        return fenced || /^\s*(```|~~~)/.test(line) ? '' : line;
      })
      .join('\n');
  }
  if (file.endsWith('.lua')) return text.split('\n').map((l) => (l.includes('--') ? l.slice(l.indexOf('--')) : '')).join('\n');
  let out = '';
  for (let i = 0; i < text.length; ) {
    const block = text.startsWith('/*', i);
    if (block || (text.startsWith('//', i) && text[i - 1] !== ':')) {
      const close = block ? text.indexOf('*/', i + 2) : text.indexOf('\n', i);
      const end = close === -1 ? text.length : block ? close + 2 : close;
      out += text.slice(i, end);
      i = end;
    } else if (text[i] === "'" || text[i] === '"' || text[i] === '`') {
      // a string is data, not prose: skipped to its closing quote (a line for ' and ")
      let j = i + 1;
      while (j < text.length && text[j] !== text[i] && (text[i] === '`' || text[j] !== '\n')) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1).replace(/[^\n]/g, ' ');
      i = j + 1;
    } else {
      out += text[i] === '\n' ? '\n' : ' ';
      i++;
    }
  }
  return out;
}

/**
 * Paths a comment or doc names that do not exist, as `file:line: ...` problems. A path is looked for from the root,
 * from src/ (modules name each other from there: `pack/build.ts`) and beside the file. Only a path whose folder
 * exists is judged, and not one directly in src/ or test/: those are the examples of workspace paths (`src/a.ts`).
 */
export function missingPaths(root) {
  const problems = [];
  const show = (abs) => nodePath.relative(root, abs).split(nodePath.sep).join('/');
  for (const { place, keep } of PATH_PLACES) {
    const abs = nodePath.join(root, place);
    let files;
    try {
      files = statSync(abs).isDirectory() ? filesBelow(abs, keep) : [abs];
    } catch {
      continue;
    }
    for (const f of files) {
      const lines = proseOf(f, readFileSync(f, 'utf8')).split('\n');
      lines.forEach((line, i) => {
        if (UPSTREAM_REPO.test(line) || (i > 0 && UPSTREAM_REPO.test(lines[i - 1]))) return;
        for (const m of line.matchAll(NAMED_PATH)) {
          const path = m[1].replace(/\.$/, '');
          const dir = nodePath.posix.dirname(path);
          if (dir === 'src' || dir === 'test') continue;
          const found = [root, nodePath.join(root, 'src'), nodePath.dirname(f)].filter((base) => existsSync(nodePath.join(base, dir)));
          if (found.length === 0) continue;
          if (found.some((base) => existsSync(nodePath.join(base, path)))) continue;
          problems.push(`${show(f)}:${i + 1}: '${path}' does not exist (a file was moved or renamed: name it as it is now)`);
        }
      });
    }
  }
  return problems;
}

/** Files below `dir` whose name `keep` accepts, in name order; node_modules and dot folders skipped. */
export function filesBelow(dir, keep) {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return names
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => {
      const abs = nodePath.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : filesBelow(abs, keep);
      return keep(e.name) ? [abs] : [];
    });
}

/** Strips comments so an import named in prose is not read as one (strings are kept). */
function withoutComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** The project files `file` imports (relative specifiers that resolve to a file of the tree). */
export function importsOf(file, text) {
  const out = [];
  for (const m of withoutComments(text).matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
    out.push(nodePath.resolve(nodePath.dirname(file), spec));
  }
  return out;
}

const layerOf = (src, file) => {
  const rel = nodePath.relative(src, file).split(nodePath.sep);
  return rel.length === 1 ? 'index' : rel[0];
};

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const found = [];
  const visit = (v) => {
    info.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!info.has(w)) {
        visit(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).onStack) info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
    }
    if (info.get(v).low === info.get(v).index) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).onStack = false;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!info.has(v)) visit(v);
  return found;
}

/** Every problem of the tree at `root`, one line each; [] when the layers hold. */
export function checkLayers(root) {
  const src = nodePath.join(root, 'src');
  const problems = [];
  const graph = new Map();
  const show = (abs) => nodePath.relative(root, abs).split(nodePath.sep).join('/');
  for (const file of filesBelow(src, (n) => SOURCE.test(n) && !n.endsWith('.d.ts'))) {
    const from = layerOf(src, file);
    const targets = importsOf(file, readFileSync(file, 'utf8')).filter((t) => {
      try {
        return statSync(t).isFile();
      } catch {
        return false;
      }
    });
    graph.set(file, targets);
    if (!RANK.has(from)) {
      problems.push(`${show(file)}: folder '${from}' is in no layer (add it to LAYERS in scripts/check-layers.mjs)`);
      continue;
    }
    for (const t of targets) {
      if (!t.startsWith(src + nodePath.sep)) {
        problems.push(`${show(file)} imports ${show(t)}, outside src/`);
        continue;
      }
      const to = layerOf(src, t);
      if (to === from) continue;
      if (!RANK.has(to) || RANK.get(to) >= RANK.get(from)) {
        problems.push(`${show(file)} imports ${show(t)}: '${from}' may not depend on '${to}' (layers, bottom first: ${LAYERS.map((l) => l.join('/')).join(' < ')})`);
      }
    }
  }
  for (const scc of cycles(graph)) problems.push(`import cycle: ${scc.map(show).join(' -> ')}`);
  for (const place of REFERENCE_PLACES) {
    const abs = nodePath.join(root, place);
    let files;
    try {
      files = statSync(abs).isDirectory() ? filesBelow(abs, () => true) : [abs];
    } catch {
      continue;
    }
    for (const f of files) {
      if (f === fileURLToPath(import.meta.url)) continue;
      const lines = readFileSync(f, 'utf8').split('\n');
      lines.forEach((line, i) => {
        const m = OUTSIDE_REFERENCE.exec(line);
        if (m) problems.push(`${show(f)}:${i + 1}: '${m[0]}' points outside the repository (say it in docs/ or cite the public upstream path)`);
      });
    }
  }
  problems.push(...missingPaths(root));
  return problems;
}

if (process.argv[1] && nodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = nodePath.resolve(process.argv[2] ?? nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url))));
  const problems = checkLayers(root);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('check-layers: imports run only downward, no cycles, no pointers outside the repository, no named path missing');
}
