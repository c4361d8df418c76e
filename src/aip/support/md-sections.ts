/**
 * Markdown sections as `aip.file.load_md_sections` / `load_md_split_first` cut them: ATX headings (`#`..`######`)
 * outside ``` fences start a section; the text before the first heading is a heading-less section.
 */

export interface MdHeading {
  line: string;
  level: number;
  name: string;
}

export function peekHeading(line: string): { level: number; name: string } | undefined {
  const m = /^(#{1,6})(?:[ \t]+(.*))?$/.exec(line);
  if (!m) return undefined;
  return { level: m[1].length, name: (m[2] ?? '').trim() };
}

export interface RawSection {
  heading?: MdHeading;
  /** all lines of the section, heading line included */
  lines: string[];
  /** index of the line after the section */
  end: number;
}

export function sectionTable(s: RawSection): Record<string, unknown> {
  const h = s.heading;
  return {
    _type: 'MdSection',
    content: s.lines.map((l) => l + '\n').join(''),
    heading_raw: h ? h.line + '\n' : '',
    heading_content: h ? h.line : '',
    heading_level: h ? h.level : 0,
    heading_name: h ? h.name : '',
  };
}

export function mdLines(content: string): string[] {
  const lines = content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Headings per line (undefined inside ``` fences and for non-heading lines). */
function headingsOf(lines: string[]): (MdHeading | undefined)[] {
  let inFence = false;
  return lines.map((line) => {
    if (line.startsWith('```')) {
      inFence = !inFence;
      return undefined;
    }
    if (inFence) return undefined;
    const h = peekHeading(line);
    return h && { line, ...h };
  });
}

/** Every section separately (nested ones too), the text before the first heading as a heading-less one. */
export function allSections(lines: string[]): RawSection[] {
  const heads = headingsOf(lines);
  const out: RawSection[] = [];
  let cur: RawSection | undefined;
  lines.forEach((line, i) => {
    const h = heads[i];
    if (h) {
      if (cur) out.push({ ...cur, end: i });
      cur = { heading: h, lines: [line], end: i + 1 };
    } else {
      cur ??= { lines: [], end: i };
      cur.lines.push(line);
    }
  });
  if (cur) out.push({ ...cur, end: lines.length });
  return out;
}

/** Sections whose heading matches a filter ("# Name"; "" = text before the first heading), sub-sections included. */
export function filteredSections(lines: string[], filters: { level: number; name: string }[]): RawSection[] {
  const heads = headingsOf(lines);
  const out: RawSection[] = [];
  const firstHeading = heads.findIndex((h) => h !== undefined);
  if (filters.some((f) => f.level === 0)) {
    const end = firstHeading < 0 ? lines.length : firstHeading;
    if (end > 0) out.push({ lines: lines.slice(0, end), end });
  }
  let cur: RawSection | undefined;
  lines.forEach((line, i) => {
    const h = heads[i];
    if (cur && h && h.level <= cur.heading!.level) {
      out.push({ ...cur, end: i });
      cur = undefined;
    }
    if (cur) {
      cur.lines.push(line);
    } else if (h && filters.some((f) => f.level === h.level && f.name === h.name)) {
      cur = { heading: h, lines: [line], end: i + 1 };
    }
  });
  if (cur) out.push({ ...cur, end: lines.length });
  return out;
}
