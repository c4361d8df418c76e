/**
 * Numbered attempts to break the sandbox (docs/sandbox.md), each run through the CLI as a child process on each
 * engine: whether it held (the clear error, nothing written outside or torn), its wall time and the CLI's peak RSS
 * (GNU time). Kill -9 is test/security/kill9.test.ts with KILL9_SEED/KILL9_RUNS; a sub-agent that rewrites its own
 * list is a contract case (`test`).
 * Run: npx tsx bench/attacks.bench.ts [ids, e.g. 9a,11]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BIN = fileURLToPath(new URL('../src/cli/bin.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const SECRET = 'TOP-SECRET-host-file';
const aip = (code: string) => `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`;
/** a sub-agent: its code runs in Output on the stage's input */
const sub = (code: string) => `# Output\n\n\`\`\`lua\n${code}\n\`\`\`\n`;
const save = (p: string, t = 'new') => `aip.file.save(${JSON.stringify(p)}, ${JSON.stringify(t)})`;
const prompt = (meta: string, extra = '') => ({ '.aipack/.prompt/pro@coder/coder-prompt.md': '```toml\n#!meta\n' + meta + '\n```\n\nFix it.\n\n====\n' + extra });

interface Run {
  code: number | null;
  out: string;
  wall: number;
  rssMb: number;
}
interface Attack {
  id: string;
  family: 'escapes' | 'data loss' | 'runaway work' | 'memory' | 'wrong answers' | 'raw errors' | 'isolation' | 'reports';
  name: string;
  files?: (root: string) => Record<string, string>;
  links?: Record<string, string>;
  /** sparse files of the given sizes (no bytes on disk) */
  sparse?: Record<string, number>;
  args: string[];
  /** runs on one engine only (the command takes none) */
  once?: boolean;
  /** two runs at once */
  twice?: boolean;
  held(r: Run, diskSame: boolean, second?: Run): boolean;
}

const A: Attack[] = [
  {
    id: '1', family: 'escapes', name: 'planted .aipack-base agent reads /etc/passwd-like host file',
    files: (root) => ({ 'x.aip': aip(`pcall(aip.file.save, "/x.aipack-base.aip", "x") aip.file.save(CTX.BASE_AIPACK_DIR .. "/evil.aip", ${JSON.stringify(aip(`return aip.file.load("${root}/secret.txt").content`))}) local ok, e = pcall(aip.agent.run, CTX.BASE_AIPACK_DIR .. "/evil.aip") return tostring(e)`) }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => !r.out.includes(SECRET) && /Read protection/.test(r.out),
  },
  {
    id: '2', family: 'escapes', name: 'symlink ws/up -> .. then aip.file.load/dofile/require',
    links: { up: '..' },
    files: () => ({ 'x.aip': aip('local r = {} for _, f in ipairs({ function() return aip.file.load("up/secret.txt").content end, function() return dofile("up/secret.txt") end, function() return require("up.secret") end }) do local ok, v = pcall(f) r[#r + 1] = tostring(v) end return table.concat(r, "|")') }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => !r.out.includes(SECRET) && /Read protection/.test(r.out),
  },
  {
    id: '3', family: 'escapes', name: 'aip.agent.run of a host .aip by absolute path',
    files: (root) => ({ 'x.aip': aip(`local ok, e = pcall(aip.agent.run, "${root}/outside.aip") return tostring(e)`) }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => !r.out.includes(SECRET),
  },
  {
    id: '5', family: 'data loss', name: '300-char path between two valid changes, --write',
    files: () => ({ 'x.aip': aip([save('keep.txt'), save(`${'n'.repeat(300)}.txt`), save('last.txt')].join('\n')) }),
    args: ['run-agent', 'x.aip', '--write', '--json'],
    held: (r, same) => r.code === 1 && same && /nothing was written/.test(r.out),
  },
  {
    id: '6', family: 'data loss', name: 'answer writes .aipack/pack/custom/pro/coder/main.aip',
    files: () => ({ 'x.aip': aip([save('keep.txt'), save('.aipack/pack/custom/pro/coder/main.aip', '# planted')].join('\n')) }),
    args: ['run-agent', 'x.aip', '--write'],
    held: (r, same) => r.code === 1 && same,
  },
  {
    id: '7', family: 'data loss', name: 'two run-agent --write at once on one workspace',
    files: () => ({ 'x.aip': aip('local n = 0 for i = 1, 3e7 do n = n + i end ' + save('keep.txt')) }),
    args: ['run-agent', 'x.aip', '--write', '--budget', '1000000000'],
    twice: true,
    held: (r, _same, s) => [r.code, s?.code].filter((c) => c === 0).length === 1 && /another run with --write/.test(r.out + (s?.out ?? '')),
  },
  {
    id: '8', family: 'runaway work', name: 'xpcall(error, handler loop) with --budget 100000',
    files: () => ({ 'x.aip': aip('xpcall(error, function() while true do end end)') }),
    args: ['run-agent', 'x.aip', '--budget', '100000'],
    held: (r) => r.code === 1 && /instruction budget exceeded in x\.aip/.test(r.out),
  },
  {
    id: '9a', family: 'runaway work', name: 'string.find(("a"):rep(5000), ".-.-.-.-.-b")',
    files: () => ({ 'x.aip': aip('return string.find(("a"):rep(5000), ".-.-.-.-.-b")') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /instruction budget exceeded in x\.aip/.test(r.out),
  },
  {
    id: '9b', family: 'runaway work', name: 's:upper() on 16 MiB, 100000 times',
    files: () => ({ 'x.aip': aip('local s = ("x"):rep(16 * 1024 * 1024) for i = 1, 100000 do s:upper() end') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /instruction budget exceeded|memory limit exceeded/.test(r.out),
  },
  {
    id: '9c', family: 'runaway work', name: 'aip.file.list("*a*a*a*a*a*a*a*a*a*a*b")',
    files: () => ({ [`${'a'.repeat(60)}.txt`]: 'x', 'x.aip': aip('return #aip.file.list("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")') }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => r.code === 0 || /budget|glob/.test(r.out),
  },
  {
    id: '10', family: 'memory', name: 's = s .. s from 16 MiB',
    files: () => ({ 'x.aip': aip('local s = ("x"):rep(16 * 1024 * 1024) while true do s = s .. s end') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /memory limit exceeded in x\.aip|resulting string too large/.test(r.out),
  },
  {
    id: '10b', family: 'memory', name: '2000 table refs to fresh 1 MiB strings',
    files: () => ({ 'x.aip': aip('local t = {} for i = 1, 2000 do t[i] = ("x"):rep(1024 * 1024 - 1) .. i end') }),
    args: ['run-agent', 'x.aip'],
    // the budget (charged by size) or the memory cap, whichever comes first
    held: (r) => r.code === 1 && /(memory limit|instruction budget) exceeded in x\.aip/.test(r.out),
  },
  {
    id: '11', family: 'runaway work', name: 'agent calling itself 3 times under pcall',
    files: () => ({ 'x.aip': aip('for i = 1, 3 do pcall(aip.agent.run, "x.aip") end return 1') }),
    args: ['run-agent', 'x.aip', '--json'],
    // the top agent swallows its callees' failures with pcall, as it may: the tree must end within the deadline
    held: (r) => r.code !== null && r.wall < 10,
  },
  {
    id: '12', family: 'runaway work', name: 'coroutine yield loop, default budget',
    files: () => ({ 'x.aip': aip('local co = coroutine.wrap(function() while true do coroutine.yield() end end) while true do co() end') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /instruction budget exceeded in x\.aip/.test(r.out),
  },
  {
    id: '13', family: 'memory', name: '50 MB context file (max_files_size_kb raised)',
    files: () => ({
      ...prompt('base_dir = ""\ncontext_globs = ["big.txt"]\nmax_files_size_kb = 100000'),
      'ai.toml': '[[response]]\nagent = "pro@coder"\ncontent = "Done."\n',
      'big.txt': 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n'.repeat(Math.ceil((50 * 1024 * 1024) / 79)),
    }),
    args: ['run', '--ai', 'ai.toml'],
    held: (r) => r.code === 0 && r.wall < 10 && r.rssMb < 1024,
  },
  {
    id: '15', family: 'wrong answers', name: 'CTX.WORKSPACE_DIR reveals the test sandbox',
    files: () => ({
      'a.aip': '# Output\n\n```lua\nif CTX.WORKSPACE_DIR:find("sandbox") then return { success = false, error_msg = "found the sandbox" } end\n```\n',
      'a.contract.toml': 'agent = "a.aip"\n\n[[case]]\nname = "same as AIPack"\nstage = "pre"\nprompt = "Go"\n[case.expect]\nunchanged = true\n',
    }),
    args: ['test'],
    held: (r) => r.code === 0,
  },
  {
    id: '16', family: 'wrong answers', name: 'invalid TOML meta / sub_agents = 5 / options.model = 5 exit 1',
    files: () => ({ ...prompt('sub_agents = 5') }),
    args: ['run', '--json'],
    held: (r) => r.code === 1,
  },
  {
    id: '17', family: 'raw errors', name: 'run-agent --json --write with a refused path prints JSON',
    files: () => ({ 'x.aip': aip(save('.aipack/pack/custom/a/b/main.aip')) }),
    args: ['run-agent', 'x.aip', '--json', '--write'],
    held: (r) => r.code === 1 && r.out.trimStart().startsWith('{'),
  },
  {
    id: '18a', family: 'raw errors', name: 'init <300-char name>',
    args: ['init', 'x'.repeat(300)],
    once: true,
    held: (r) => r.code !== 0 && !/\n\s+at |ENAMETOOLONG:/.test(r.out),
  },
  {
    id: '18b', family: 'raw errors', name: '{{helperMissing}} in a prompt template',
    files: () => ({ 'x.aip': '# Data\n\n```lua\nreturn { a = 1 }\n```\n\n# Instruction\n\n{{helperMissing}}\n\n# Output\n\n```lua\nreturn 1\n```\n' }),
    args: ['run-agent', 'x.aip'],
    held: (r) => !/Cannot read properties|\n\s+at /.test(r.out),
  },
  // round 4: pooled states, paths a case or config names, reports, costs charged where incurred
  {
    id: '19', family: 'isolation', name: "case A sets the __tostring of aip's error metatable; case B formats an aip error",
    files: () => ({
      'cases/a.aip': sub('local ok, e = pcall(aip.file.load, 5) local mt = getmetatable(e) if mt then pcall(function() mt.__tostring = function() pcall(aip.file.save, "planted.txt", "A") return "from A" end end) end return nil'),
      'cases/a.contract.toml': 'agent = "a.aip"\n[[case]]\nname = "a"\nstage = "pre"\nprompt = "x"\n[case.expect]\n',
      'cases/b.aip': sub('local ok, e = pcall(aip.file.load, 5) return { coder_params = { msg = tostring(e):sub(1, 12) } }'),
      'cases/b.contract.toml': 'agent = "b.aip"\n[[case]]\nname = "b"\nstage = "pre"\nprompt = "x"\n[case.expect]\nparams_contains = { msg = "aip.file.loa" }\n',
    }),
    args: ['test', 'cases'],
    held: (r) => r.code === 0 && /2 passed/.test(r.out),
  },
  {
    id: '20', family: 'isolation', name: 'case A: math.randomseed(1), collectgarbage("stop"), a library key re-added; case B reads them',
    files: () => ({
      'cases/a.aip': sub('math.randomseed(1) pcall(collectgarbage, "stop") local f = string.upper string.upper = nil string.upper = f return nil'),
      'cases/a.contract.toml': 'agent = "a.aip"\n[[case]]\nname = "a"\nstage = "pre"\nprompt = "x"\n[case.expect]\n',
      'cases/b.aip': sub('local ok, running = pcall(collectgarbage, "isrunning") local keys = {} for k in pairs(string) do keys[#keys + 1] = k end return { coder_params = { running = (not ok) or running, first = keys[1] } }'),
      'cases/b.contract.toml': 'agent = "b.aip"\n[[case]]\nname = "b"\nstage = "pre"\nprompt = "x"\n[case.expect]\nparams_contains = { running = true }\n',
    }),
    args: ['test', 'cases'],
    held: (r) => r.code === 0 && /2 passed/.test(r.out),
  },
  {
    id: '21', family: 'escapes', name: '[case.expect] files names /etc/passwd and ../../secret.txt',
    files: () => ({
      'cases/a.aip': sub('return nil'),
      'cases/a.contract.toml': 'agent = "a.aip"\n[[case]]\nname = "a"\nstage = "pre"\nprompt = "x"\n[case.expect]\nfiles = { "/etc/passwd" = "guess", "../../secret.txt" = "guess" }\n',
    }),
    args: ['test', 'cases', '--reporter', 'json'],
    held: (r) => r.code === 2 && /expected a workspace-relative path/.test(r.out) && !r.out.includes(SECRET) && !r.out.includes('root:x:0'),
  },
  {
    id: '22', family: 'reports', name: 'config output_file outside the project; a newline in a case name (JUnit)',
    files: () => ({
      'coder-subagents.config.toml': 'reporter = "junit"\noutput_file = "../planted.xml"\n',
      'cases/a.aip': sub('return nil'),
      'cases/a.contract.toml': 'agent = "a.aip"\n[[case]]\nname = "a\\nssh-ed25519 AAAA planted"\nstage = "pre"\nprompt = "x"\n[case.expect]\n',
    }),
    args: ['test', 'cases'],
    held: (r, same) => r.code === 2 && /leads outside the project/.test(r.out) && same,
  },
  {
    id: '23', family: 'memory', name: 'aip.file.load of a 2 GB sparse file',
    sparse: { 'big.bin': 2 * 1024 ** 3 },
    files: () => ({ 'x.aip': aip('local ok, e = pcall(aip.file.load, "big.bin") return tostring(e):sub(1, 200)') }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => r.code === 0 && r.rssMb < 512 && /larger|too big|memory/.test(r.out),
  },
  {
    id: '24', family: 'memory', name: 'io.write of 1 MB, 20,000 times',
    files: () => ({ 'x.aip': aip('local s = ("x"):rep(1024 * 1024) for i = 1, 20000 do io.write(s) end return 1') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && r.rssMb < 1024 && /(budget|memory limit|output limit)/.test(r.out),
  },
  {
    id: '25', family: 'memory', name: 'run-agent --json on a result of 2,000 refs to one 1 MiB string',
    files: () => ({ 'x.aip': aip('local s = ("x"):rep(1024 * 1024) local t = {} for i = 1, 2000 do t[i] = s end return t') }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => r.code === 1 && r.rssMb < 1024 && !/FATAL|heap out of memory/.test(r.out),
  },
  {
    id: '26', family: 'runaway work', name: '150 aip.hbs.render calls on a 200k-element table',
    files: () => ({ 'x.aip': aip('local t = {} for i = 1, 200000 do t[i] = i end for i = 1, 150 do aip.hbs.render("{{x.[0]}}", { x = t }) end return 1') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /instruction budget exceeded/.test(r.out),
  },
  {
    id: '27', family: 'runaway work', name: 'aip.json.stringify of one 200k-element table, 150 times',
    files: () => ({ 'x.aip': aip('local t = {} for i = 1, 200000 do t[i] = i end for i = 1, 150 do aip.json.stringify(t) end return 1') }),
    args: ['run-agent', 'x.aip'],
    held: (r) => r.code === 1 && /instruction budget exceeded/.test(r.out),
  },
  {
    id: '28', family: 'wrong answers', name: 'pcall(table.move, {}, 1, math.maxinteger, 2) and table.concat to maxinteger',
    files: () => ({ 'x.aip': aip('local a, e1 = pcall(table.move, {}, 1, math.maxinteger, 2) local b, e2 = pcall(table.concat, {}, "", 1, math.maxinteger) return tostring(e1) .. " | " .. tostring(e2)') }),
    args: ['run-agent', 'x.aip', '--json'],
    held: (r) => r.code === 0 && /wrap around|too many elements to move/.test(r.out) && /invalid value \(at index 1\) in table for 'concat'|invalid value \(nil\) at index 1/.test(r.out),
  },
];

function disk(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = nodePath.join(d, e.name);
      if (e.isSymbolicLink()) out.push(`${p} -> ${fs.readlinkSync(p)}`);
      else if (e.isDirectory()) walk(p);
      else {
        // the first 64 bytes only: an attack's file may be larger than a buffer holds
        const head = Buffer.alloc(64);
        const fd = fs.openSync(p, 'r');
        const n = fs.readSync(fd, head, 0, 64, 0);
        fs.closeSync(fd);
        out.push(`${p} ${fs.statSync(p).size} ${head.subarray(0, n).toString('hex')}`);
      }
    }
  };
  walk(dir);
  return out.join('\n');
}

function timed(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', '\n@@%e %M', process.execPath, '--import', TSX, BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => {
      const m = /@@([\d.]+) (\d+)\s*$/.exec(out);
      resolve({ code, out: out.replace(/\n@@[\d.]+ \d+\s*$/, ''), wall: Number(m?.[1] ?? NaN), rssMb: Math.round(Number(m?.[2] ?? NaN) / 1024) });
    });
  });
}

const only = process.argv[2]?.split(',');
const rows: string[] = [];
for (const attack of A.filter((x) => !only || only.includes(x.id))) {
  for (const engine of attack.once ? ['-'] : ['fengari', 'lua54']) {
    const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'attack-')));
    const ws = nodePath.join(root, 'ws');
    fs.mkdirSync(nodePath.join(ws, '.aipack'), { recursive: true });
    fs.writeFileSync(nodePath.join(root, 'secret.txt'), SECRET);
    fs.writeFileSync(nodePath.join(root, 'secret.lua'), `return "${SECRET}"`);
    fs.writeFileSync(nodePath.join(root, 'outside.aip'), aip(`return "${SECRET}"`));
    fs.writeFileSync(nodePath.join(ws, 'keep.txt'), 'old');
    for (const [rel, text] of Object.entries(attack.files?.(root) ?? {})) {
      fs.mkdirSync(nodePath.dirname(nodePath.join(ws, rel)), { recursive: true });
      fs.writeFileSync(nodePath.join(ws, rel), text);
    }
    for (const [rel, target] of Object.entries(attack.links ?? {})) fs.symlinkSync(target, nodePath.join(ws, rel));
    for (const [rel, size] of Object.entries(attack.sparse ?? {})) {
      fs.writeFileSync(nodePath.join(ws, rel), '');
      fs.truncateSync(nodePath.join(ws, rel), size);
    }
    const before = disk(root);
    const args = engine === '-' ? attack.args : [...attack.args, '--engine', engine];
    const [r, second] = attack.twice ? await Promise.all([timed(args, ws), timed(args, ws)]) : [await timed(args, ws), undefined];
    const after = disk(root);
    const held = attack.held(r, before === after, second);
    const line = `${attack.id.padEnd(4)} ${attack.family.padEnd(13)} ${engine.padEnd(7)} ${held ? 'held  ' : 'BROKE '} ${String(r.wall).padStart(6)} s ${String(r.rssMb).padStart(5)} MB  ${attack.name}`;
    console.log(line);
    if (!held) console.log('     ' + r.out.slice(0, 600).replace(/\n/g, '\n     '));
    rows.push(line);
    fs.rmSync(root, { recursive: true, force: true });
  }
}
void spawnSync;
