// Fails (exit 1) when a file of src/ with behaviour of its own has no test at the mirrored path
// (src/a/b.ts -> test/a/b.test.ts), or when an exemption below is stale. Topic tests (test/security/, ...)
// are welcome in addition; they do not stand in for the mirrored file. `node scripts/check-test-mirror.mjs [ROOT]`.
import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesBelow } from './check-layers.mjs';

/**
 * Files with no behaviour of their own, by path, each with its reason:
 * types = type declarations only; re-exports = only re-exports what other files define;
 * entry = the process entry point, run end to end by the CLI tests.
 */
export const EXEMPT = {
  'src/contract/index.ts': 're-exports',
  'src/support/host-fs.ts': 're-exports',
  'src/cli/bin.ts': 'entry',
  'src/aip/types.ts': 'types',
  'src/aip/support/lifecycle-stage.ts': 'types',
  'src/report/suite-view.ts': 'types',
  'src/engine/engine.ts': 'types',
  'src/engine/lua-api.ts': 'types',
  'src/runtime/simulator-options.ts': 'types',
};

const REASONS = new Set(['types', 're-exports', 'entry']);

/** `test/<same path>.test.ts` for a src path relative to the root. */
export function mirroredTest(srcRel) {
  return 'test/' + srcRel.slice('src/'.length).replace(/\.ts$/, '.test.ts');
}

/** { missing: src paths without their mirrored test, problems: stale or malformed exemptions }. */
export function checkTestMirror(root, exempt = EXEMPT) {
  const toRel = (abs) => nodePath.relative(root, abs).split(nodePath.sep).join('/');
  const sources = filesBelow(nodePath.join(root, 'src'), (n) => n.endsWith('.ts') && !n.endsWith('.d.ts')).map(toRel);
  const has = (rel) => existsSync(nodePath.join(root, rel));
  const missing = sources.filter((s) => !(s in exempt) && !has(mirroredTest(s)));
  const problems = [];
  for (const [path, reason] of Object.entries(exempt)) {
    if (!REASONS.has(reason)) problems.push(`exemption ${path}: reason '${reason}' is not one of ${[...REASONS].join(', ')}`);
    if (!sources.includes(path)) problems.push(`exemption ${path}: no such source file (remove it from the list)`);
    else if (has(mirroredTest(path))) problems.push(`exemption ${path}: it has a test, ${mirroredTest(path)} (remove it from the list)`);
  }
  return { missing, problems };
}

if (process.argv[1] && nodePath.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = nodePath.resolve(process.argv[2] ?? nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url))));
  const { missing, problems } = checkTestMirror(root);
  for (const s of missing) console.error(`${s}: no ${mirroredTest(s)}`);
  for (const p of problems) console.error(p);
  if (missing.length > 0 || problems.length > 0) {
    const perFolder = new Map();
    for (const s of missing) {
      const folder = s.split('/').slice(0, 2).join('/');
      perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
    }
    const counts = [...perFolder].map(([f, n]) => `${f} ${n}`).join(', ');
    console.error(`check-test-mirror: ${missing.length} source file(s) without a mirrored test${counts ? ` (${counts})` : ''}, ${problems.length} exemption problem(s)`);
    process.exit(1);
  }
  console.log('check-test-mirror: every source file with behaviour of its own has its mirrored test');
}
