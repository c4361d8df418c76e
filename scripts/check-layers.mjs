// Fails (exit 1) when an import in src/ runs upward or in a circle, or when a comment or doc points at a document
// outside the repository. Run by `npm test` before the test runner; `node scripts/check-layers.mjs [ROOT]`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
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
  console.log('check-layers: imports run only downward, no cycles, no pointers outside the repository');
}
