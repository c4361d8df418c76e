import nodePath from 'node:path';

/**
 * How a path is shown to the user: relative to `cwd` with '/' separators when it lies inside it ('.' for `cwd`
 * itself), else the absolute path, so a path never starts with '..'.
 */
export function relativeToCwd(abs: string, cwd: string = process.cwd()): string {
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
