// The compiled package reads a few non-TypeScript files next to its modules (tsc copies only .ts).
import { chmodSync, cpSync, readdirSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

const root = nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url)));
// report/assets/ holds the HTML report's page, style and script
const ASSET = /\.(lua|aip|hbs|md|toml|mjs)$|^report\/assets\/[^/]+\.(html|css|js)$/;

function copy(dir) {
  for (const e of readdirSync(nodePath.join(root, 'src', dir), { withFileTypes: true })) {
    const rel = nodePath.join(dir, e.name);
    if (e.isDirectory()) copy(rel);
    else if (ASSET.test(e.name) || ASSET.test(rel.split(nodePath.sep).join('/'))) cpSync(nodePath.join(root, 'src', rel), nodePath.join(root, 'dist', rel));
  }
}
copy('');
// the package's executable (package.json "bin"), which tsc writes as a plain file: npx in this checkout runs it as is
chmodSync(nodePath.join(root, 'dist', 'cli', 'bin.js'), 0o755);
