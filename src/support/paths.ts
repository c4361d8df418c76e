import nodePath from 'node:path';

/**
 * How a path is shown to the user: relative to `cwd` with '/' separators when it lies inside it ('.' for `cwd`
 * itself), else the absolute path, so a path never starts with '..'.
 */
export function relativeToCwd(abs: string, cwd: string = process.cwd()): string {
  // every stage names the same chunk files in its messages: each is worked out once for the cwd (a relative
  // path depends on the process's cwd as well)
  if (!nodePath.isAbsolute(abs)) return relativeTo(cwd, abs);
  if (cwd !== shown.cwd || shown.paths.size >= SHOWN_PATHS) {
    shown.cwd = cwd;
    shown.paths.clear();
  }
  let path = shown.paths.get(abs);
  if (path === undefined) shown.paths.set(abs, (path = relativeTo(cwd, abs)));
  return path;
}

const SHOWN_PATHS = 4096;
const shown = { cwd: '', paths: new Map<string, string>() };

function relativeTo(cwd: string, abs: string): string {
  const rel = nodePath.relative(cwd, abs);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith('..' + nodePath.sep) || nodePath.isAbsolute(rel)) return abs;
  return rel.split(nodePath.sep).join('/');
}

/**
 * What is wrong with `key` as a path relative to a root (a case's `files` and `expect.files` keys), or undefined:
 * it must stay below the root as written, whatever the host's separator (no leading `/` or `\`, no drive, no `..`
 * segment, no NUL, not empty).
 */
export function relativeKeyProblem(key: string): string | undefined {
  const expected = 'expected a workspace-relative path (no leading /, no ..)';
  if (key === '' || key.includes('\0')) return `${expected}, got an empty name or a NUL byte`;
  if (nodePath.isAbsolute(key) || /^[\\/]/.test(key) || /^[A-Za-z]:/.test(key) || key.split(/[\\/]/).includes('..')) return expected;
  return undefined;
}
