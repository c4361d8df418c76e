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
