// A read judges the file it opens as it opens it: a verdict held for the run (read-guard.ts hold) lets a path
// through, but a workspace file or folder swapped for a symlink leading out since then is refused, not read
// through. The swap is made between two stages of one run, as another process could make it.
import fs from 'node:fs';
import nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Simulator } from '../../src/runtime/simulator.ts';
import { arena, SECRET, type Arena } from './helpers.ts';

let a: Arena;
beforeEach(() => {
  a = arena();
});
afterEach(() => a.cleanup());

/** An agent reading `expr` in Before All and again in After All, each caught by pcall. */
const twice = (expr: string) => {
  const read = `local ok, v = pcall(function() return ${expr} end)\nlocal got = ok and v or ("refused: " .. tostring(v))`;
  return (
    `# Before All\n\n\`\`\`lua\n${read}\nreturn aip.flow.before_all_response({ before_all = got })\n\`\`\`\n\n` +
    `# After All\n\n\`\`\`lua\n${read}\nreturn { first = before_all, second = got }\n\`\`\`\n`
  );
};

/** Runs `agent`, calling `swap` once when the After All stage begins. */
function runSwapping(expr: string, swap: () => void): { first: string; second: string } {
  a.write('reader.aip', twice(expr));
  let swapped = false;
  const sim = new Simulator({
    workspaceDir: a.ws,
    onStage: (where) => {
      if (!swapped && /after.?all/i.test(where)) {
        swapped = true;
        swap();
      }
    },
  });
  const out = sim.run({ name: 'reader', baseDir: a.ws }).afterAll as { first: string; second: string };
  expect(swapped).toBe(true);
  return out;
}

const REFUSED = /^refused: .*Read protection \(simulator\) - The path `.*` is outside the workspace/;

describe('a file swapped for a symlink during a run', () => {
  it('is read before the swap and refused after it', () => {
    a.write('data.txt', 'DATA');
    const r = runSwapping('aip.file.load("data.txt").content', () => {
      fs.rmSync(nodePath.join(a.ws, 'data.txt'));
      fs.symlinkSync(a.secret, nodePath.join(a.ws, 'data.txt'));
    });
    expect(r.first).toBe('DATA');
    expect(r.second).toMatch(REFUSED);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });

  it('a folder on the path swapped for a symlink leading out is refused too', () => {
    a.write('src/secret.txt', 'INSIDE');
    const r = runSwapping('aip.file.load("src/secret.txt").content', () => {
      fs.renameSync(nodePath.join(a.ws, 'src'), nodePath.join(a.ws, 'src-old'));
      fs.mkdirSync(nodePath.join(a.root, 'elsewhere'));
      fs.writeFileSync(nodePath.join(a.root, 'elsewhere', 'secret.txt'), SECRET);
      fs.symlinkSync(nodePath.join(a.root, 'elsewhere'), nodePath.join(a.ws, 'src'));
    });
    expect(r.first).toBe('INSIDE');
    expect(r.second).toMatch(REFUSED);
  });

  it('every reader judges the opened file: spans, hashes, JSON, copies', () => {
    for (const expr of ['aip.file.read_span("d.json", 0, 2)', 'aip.file.hash_sha256("d.json")', 'aip.file.load_json("d.json").k', '(function() aip.file.copy("d.json", aip.file.exists("c1.json") and "c2.json" or "c1.json") return "copied" end)()']) {
      fs.rmSync(nodePath.join(a.ws, 'd.json'), { force: true });
      a.write('d.json', '{"k":"v"}');
      const r = runSwapping(expr, () => {
        fs.rmSync(nodePath.join(a.ws, 'd.json'));
        fs.writeFileSync(nodePath.join(a.root, 'secret.json'), `{"k":"${SECRET}"}`);
        fs.symlinkSync(nodePath.join(a.root, 'secret.json'), nodePath.join(a.ws, 'd.json'));
      });
      expect(r.first, expr).not.toMatch(/^refused/);
      expect(r.second, expr).toMatch(REFUSED);
    }
  });

  it('a symlink swapped for one that stays inside the workspace is still read', () => {
    a.write('data.txt', 'DATA');
    a.write('other.txt', 'OTHER');
    const r = runSwapping('aip.file.load("data.txt").content', () => {
      fs.rmSync(nodePath.join(a.ws, 'data.txt'));
      fs.symlinkSync(nodePath.join(a.ws, 'other.txt'), nodePath.join(a.ws, 'data.txt'));
    });
    expect(r).toEqual({ first: 'DATA', second: 'OTHER' });
  });
});
