// Bundles the CLI, the jobs its workers load and the package's entry (package.json `exports`) into dist/bundle/ (an
// entry each, shared chunks, lazily imported parts in chunks of their own). Runs after tsc and copy-assets, on the
// compiled modules.
//
// Why: Node 20 loads an ES module graph file by file (resolve, stat, read, compile, link), about a millisecond a
// module here, and has no compile cache (module.enableCompileCache came in Node 22). A `test` run loaded ~330
// modules in its worker and ~50-200 on its main thread before any case ran; bundled, each thread loads a few files.
//
// What the bundle keeps as the per-file build has it:
// - every module's `import.meta.url` still names its file in dist/ (the plugin below), so the files a module reads
//   beside itself (sandbox.lua, the report's assets, fengari-chunks.json, package.json two levels up) are found;
// - except in the modules that locate a jobs module for a worker (JOBS_LOCATORS): the jobs module they name is a
//   bundle entry of the same name, beside the bundle's files, so there `import.meta.url` is the bundle file's own;
// - functions and classes keep their names (`keepNames`): esbuild renames a class two modules both name, or one that
//   refers to itself in its body (`ScriptedAi` became `_ScriptedAi`), and the package's entry exports classes; the
//   calls it adds to name closures did not move 100 many-agent cases' CPU beyond their spread (fengari 0.97, lua54
//   1.01 of before, six interleaved pairs);
// - fengari and wasmoon stay packages loaded from node_modules: fengari is loaded through `require` with its
//   sources patched (engine/fengari-vm.ts), wasmoon reads its .wasm beside its own module.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

const root = nodePath.dirname(nodePath.dirname(fileURLToPath(import.meta.url)));
const dist = nodePath.join(root, 'dist');
const outdir = nodePath.join(dist, 'bundle');

/** bundle entry name → compiled module; the names are what the locators below ask for */
const ENTRIES = {
  cli: 'cli/main.js',
  // the package's entry: a library user's import loads a few files, not ~430 modules
  index: 'index.js',
  'worker-jobs': 'harness/worker-jobs.js',
  'simulate-job': 'cli/simulate-job.js',
  // what bin.js loads first for `test`, to start a worker: its modules are chunks the CLI shares
  'suite-workers': 'harness/isolated.js',
};
/** module → the one statement in it where `import.meta.url` locates a sibling jobs module (a bundle entry above) */
const JOBS_LOCATORS = {
  'harness/run-job.js': "siblingModule(import.meta.url, './worker-jobs')",
  'cli/simulate.js': "siblingModule(import.meta.url, './simulate-job')",
};

const keepFileUrls = {
  name: 'keep-file-urls',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const rel = nodePath.relative(dist, args.path).split(nodePath.sep).join('/');
      if (rel.startsWith('..')) return undefined; // a package's module: as it is
      const code = readFileSync(args.path, 'utf8');
      const uses = code.split('import.meta.url').length - 1;
      if (uses === 0) return { contents: code, loader: 'js' };
      const locator = JOBS_LOCATORS[rel];
      if (locator !== undefined) {
        if (uses !== 1 || !code.includes(locator)) throw new Error(`scripts/bundle.mjs: dist/${rel} must use import.meta.url once, in \`${locator}\` (its jobs module is a bundle entry)`);
        return { contents: code, loader: 'js' };
      }
      const own = JSON.stringify(nodePath.relative(outdir, args.path).split(nodePath.sep).join('/'));
      return { contents: code.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`), loader: 'js' };
    });
  },
};

// chunks are named by their content's hash: the last build's would stay beside this one's and be packed
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, nodePath.join(dist, file)])),
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['fengari', 'wasmoon'],
  chunkNames: 'chunk-[hash]',
  // a bundled CommonJS package that calls require() gets Node's own
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [keepFileUrls],
  keepNames: true,
  logLevel: 'warning',
  metafile: true,
});
const inputs = Object.keys(result.metafile.inputs).length;
const outputs = Object.keys(result.metafile.outputs).length;
console.log(`bundled ${inputs} modules into ${outputs} files in dist/bundle/`);
