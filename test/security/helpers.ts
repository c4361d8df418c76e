import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';

/** A temp dir `root` holding a workspace `root/ws` (with `.aipack/`) and a secret file beside it, outside. */
export interface Arena {
  root: string;
  ws: string;
  secret: string;
  /** writes a file below the workspace (dirs created) */
  write(rel: string, content: string): string;
  /** every file and symlink below root, with content: compared before and after an attack */
  disk(): Record<string, string>;
  cleanup(): void;
}

export const SECRET = 'TOP-SECRET-host-file';

export function arena(): Arena {
  const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), 'sec-')));
  const ws = nodePath.join(root, 'ws');
  fs.mkdirSync(nodePath.join(ws, '.aipack'), { recursive: true });
  const secret = nodePath.join(root, 'secret.txt');
  fs.writeFileSync(secret, SECRET);
  return {
    root,
    ws,
    secret,
    write(rel, content) {
      const abs = nodePath.join(ws, rel);
      fs.mkdirSync(nodePath.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, content);
      return abs;
    },
    disk: () => diskState(root),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** Files (content) and symlinks (-> target) below a dir, keyed relative to it. */
export function diskState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const abs = nodePath.join(d, e.name);
      const rel = nodePath.relative(dir, abs);
      if (e.isSymbolicLink()) out[rel] = `-> ${fs.readlinkSync(abs)}`;
      else if (e.isDirectory()) walk(abs);
      else out[rel] = fs.readFileSync(abs, 'utf8');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** An .aip whose After All runs `code`. */
export const afterAll = (code: string) => `# After All\n\n\`\`\`lua\n${code}\n\`\`\`\n`;
