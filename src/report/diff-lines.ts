import { structuredPatch } from 'diff';

/**
 * The unified diff of two texts as lines (`@@ ... @@` hunk heads, then ` `, `-`, `+` lines), without the file
 * headers: what the report shows under a file's or a value's name. Empty when the texts are equal.
 */
export function diffLines(before: string, after: string, context = 3): string[] {
  if (before === after) return [];
  // a last line without its newline is compared as a line: `a` -> `a\n\nb` adds two lines, it does not change `a`
  const line = (t: string) => (t === '' || t.endsWith('\n') ? t : t + '\n');
  const patch = structuredPatch('a', 'b', line(before), line(after), '', '', { context });
  const out: string[] = [];
  for (const h of patch.hunks) {
    // an empty side starts at the line before, as unified diffs write it (`@@ -0,0 +1,2 @@` for a new file)
    const at = (start: number, lines: number) => `${lines === 0 ? start - 1 : start},${lines}`;
    out.push(`@@ -${at(h.oldStart, h.oldLines)} +${at(h.newStart, h.newLines)} @@`);
    // "\ No newline at end of file" markers say nothing a reader of the report needs
    for (const l of h.lines) if (!l.startsWith('\\')) out.push(l);
  }
  return out;
}
