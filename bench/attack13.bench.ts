/**
 * Sandbox attempt 13: `coder-subagents run` on a prompt whose context is one 50 MB file (max_files_size_kb
 * raised), on each engine, with and without --json. Prints wall time and the CLI process's peak RSS (read by
 * GNU time, /usr/bin/time). Run: npx tsx bench/attack13.bench.ts [MB]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const mb = Number(process.argv[2] ?? 50);
const BIN = fileURLToPath(new URL('../src/cli/bin.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ws = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'attack13-'));
try {
  fs.mkdirSync(nodePath.join(ws, '.aipack/.prompt/pro@coder'), { recursive: true });
  fs.writeFileSync(
    nodePath.join(ws, '.aipack/.prompt/pro@coder/coder-prompt.md'),
    '```toml\n#!meta\nbase_dir = ""\ncontext_globs = ["big.txt"]\nmax_files_size_kb = 100000\n```\n\nSummarize big.txt.\n\n====\n',
  );
  fs.writeFileSync(nodePath.join(ws, 'ai.toml'), '[[response]]\nagent = "pro@coder"\ncontent = "Done."\n');
  const line = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n';
  fs.writeFileSync(nodePath.join(ws, 'big.txt'), line.repeat(Math.ceil((mb * 1024 * 1024) / line.length)));
  console.log(`huge context: ${mb} MB context file (${os.cpus().length} cores)`);
  for (const engine of ['fengari', 'lua54']) {
    for (const json of [false, true]) {
      const args = ['-f', '%e %M', process.execPath, '--import', TSX, BIN, 'run', '--ai', 'ai.toml', '--engine', engine, ...(json ? ['--json'] : [])];
      const r = spawnSync('/usr/bin/time', args, { cwd: ws, encoding: 'utf8', maxBuffer: 1024 ** 3 });
      const [wall, kb] = (r.stderr.trim().split('\n').pop() ?? '').split(' ');
      console.log(`${engine.padEnd(8)} ${json ? '--json' : '      '} exit ${r.status}  ${wall} s  peak RSS ${Math.round(Number(kb) / 1024)} MB`);
    }
  }
} finally {
  fs.rmSync(ws, { recursive: true, force: true });
}
