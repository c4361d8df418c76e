// Input annotations in a sub-agent's Lua: `---@param input CoderPostTaskInput` (or `---@type CoderPreInput`) says
// which stage's input the script receives, for the checker and for the Lua language server.

import { STAGES } from '../contract/index.ts';
import { suggest } from '../support/suggest.ts';
import { ANY_INPUT_CLASS, EVENT_INPUT_CLASS, EVENT_KINDS, STAGE_INPUT_CLASS, type InputKind } from './contract-types.ts';

const CLASS_STAGES = new Map<string, InputKind[]>([
  ...STAGES.map((s): [string, InputKind[]] => [STAGE_INPUT_CLASS[s], [s]]),
  ...EVENT_KINDS.map((k): [string, InputKind[]] => [EVENT_INPUT_CLASS[k], [k]]),
  [ANY_INPUT_CLASS, [...STAGES]],
]);

// comment text is what follows `--`: `-@param input X`, or a union `X|Y` (an agent run at start and at end)
const PARAM_RE = /^-\s*@param\s+input\s+([A-Za-z_][\w.]*(?:\s*\|\s*[A-Za-z_][\w.]*)*)/;
const TYPE_RE = /^-\s*@type\s+(Coder[\w.]*(?:\s*\|\s*[A-Za-z_][\w.]*)*)/;

export interface AnnotationComment {
  text: string;
  line: number;
  column: number;
}

/** The stages named by annotations; an unknown input class is reported (when `report` is given). */
export function annotatedStages(
  comments: AnnotationComment[],
  report?: (line: number, column: number, rule: 'annotation', message: string) => void,
): InputKind[] {
  const out = new Set<InputKind>();
  for (const c of comments) {
    const m = PARAM_RE.exec(c.text) ?? TYPE_RE.exec(c.text);
    if (!m) continue;
    for (const cls of m[1].split('|').map((x) => x.trim())) {
      const stages = CLASS_STAGES.get(cls);
      if (stages) {
        for (const s of stages) out.add(s);
        continue;
      }
      const hint = suggest(cls, [...CLASS_STAGES.keys()]);
      report?.(
        c.line,
        c.column,
        'annotation',
        `unknown input class '${cls}'${hint ? `; did you mean ${hint}?` : ''} (one of ${[...CLASS_STAGES.keys()].join(', ')})`,
      );
    }
  }
  return [...out];
}

/** Annotated stages of Lua code, without reports (comments found by a plain line scan). */
export function annotatedStagesOf(code: string): InputKind[] {
  const comments: AnnotationComment[] = [];
  code.split('\n').forEach((l, i) => {
    const k = l.indexOf('--');
    if (k >= 0) comments.push({ text: l.slice(k + 2), line: i + 1, column: k + 1 });
  });
  return annotatedStages(comments);
}
