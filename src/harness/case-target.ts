/** Where a case runs (its stage, its event) and the problems of what it names: events, the prev chain, the forms. */
import nodePath from 'node:path';
import * as z from 'zod';
import { configStages, eventStage, normalizeEntry, WORKBENCH_DONE_EVENT, type SubAgentStage } from '../contract/index.ts';
import { relativeKeyProblem } from '../support/paths.ts';
import { suggest } from '../support/suggest.ts';
import { EVENT_RESPONSE_FIELDS, stageInputShape, type CaseExpect, type PrevItem } from './case-schema.ts';

/** The stage inputs of a case or of a runStage request, as the schema reads them. */
type StageInputFields = Partial<z.infer<z.ZodObject<typeof stageInputShape>>> & { expect?: CaseExpect };

/**
 * The stage a case runs in: its `stage`, else the first stage its config's upstream `on` maps to
 * (pack/SUB_AGENTS.md section 7: start = pre, end = post), else pre.
 */
export function caseStage(stage: SubAgentStage | undefined, config: Record<string, unknown> | undefined): SubAgentStage {
  if (stage !== undefined) return stage;
  if (config?.on === undefined) return 'pre';
  const r = normalizeEntry({ ...config, name: 'x' }, 'config');
  return r.ok ? (configStages(r.config)[0] ?? 'pre') : 'pre';
}

/**
 * The event a case whose config gives `on` (and no case-level `on`) dispatches: the first of its events sent in
 * the case's stage (start at pre, end at post), else its first event another sub-agent emits.
 */
export function configEvent(config: Record<string, unknown> | undefined, stage: SubAgentStage): string | undefined {
  const on = config?.on;
  if (on === undefined) return undefined;
  const events = (Array.isArray(on) ? on : [on]).filter((e): e is string => typeof e === 'string' && e !== '');
  return events.find((e) => eventStage(e, stage) === stage && (e === 'start' || e === 'end')) ?? events.find((e) => e !== 'start' && e !== 'end');
}

/** Where a case runs: its stage, and for the event form the event dispatched there. */
export function caseTarget(c: Pick<StageInputFields, 'stage' | 'on' | 'during' | 'config'>): { stage: SubAgentStage; event?: string } {
  if (c.on !== undefined) {
    const stage = c.on === 'start' ? 'pre' : c.on === 'end' ? 'post' : c.during === 'end' ? 'post' : 'pre';
    return { stage, event: c.on };
  }
  const stage = caseStage(c.stage, c.config);
  const event = configEvent(c.config, stage);
  return event === undefined ? { stage } : { stage, event };
}

/** Events the pack sends itself: start and end, and workbench::done at pre once the start queue is done. */
const ROOT_EVENTS = ['start', 'end', WORKBENCH_DONE_EVENT];

/** What is wrong with a case's `on`, or undefined. */
function eventProblem(on: string): string | undefined {
  if (ROOT_EVENTS.includes(on)) return undefined;
  if (/^[^\s:]+::[^\s]+$/.test(on)) return undefined;
  const near = suggest(on, ROOT_EVENTS);
  return `unknown event '${on}'${near ? ` (did you mean '${near}'?)` : ''}: expected "start", "end" or an emitted event "ns::name"`;
}

/** The root event of the dispatch chain a stage runs: start at pre, end at post. */
export const chainRoot = (stage: SubAgentStage): string => (stage === 'post' ? 'end' : 'start');

/**
 * A prev's `event`: the case's event, or for an emitted one also its chain's root (those prevs ran before it was
 * emitted, so they come first). [key, message] or undefined.
 */
function prevEventProblem(prev: PrevItem[], stage: SubAgentStage, event: string | undefined): [string, string] | undefined {
  if (event === undefined) return undefined;
  const root = chainRoot(stage);
  const emitted = event !== root;
  let seenOwn = false;
  for (const [i, p] of prev.entries()) {
    const key = `prev[${i + 1}].event`;
    const ran: string = p.event ?? event;
    if (ran === event) {
      seenOwn = true;
      continue;
    }
    if (!emitted || ran !== root) {
      const allowed = emitted ? `"${root}" (the root of the chain that emits ${event}) or "${event}"` : `"${event}"`;
      return [key, `expected ${allowed}, got "${ran}"`];
    }
    if (seenOwn) return [key, `the prevs that ran at ${root} come first (they ran before ${event} was emitted)`];
  }
  return undefined;
}

/** The event form's own checks of a case: [key, message] or undefined. */
function eventFormProblem(c: StageInputFields): [string, string] | undefined {
  const e = c.expect ?? {};
  const eventForm = c.on !== undefined || c.config?.on !== undefined;
  if (c.on !== undefined && c.stage !== undefined) return ['on', 'give on (the event form) or stage (the stage form), not both'];
  if (c.on !== undefined) {
    const problem = eventProblem(c.on);
    if (problem) return ['on', problem];
  }
  if (c.during !== undefined && (c.on === undefined || ROOT_EVENTS.includes(c.on))) {
    const root = c.on === undefined ? '' : `; ${c.on} is dispatched at ${c.on === 'start' ? 'pre' : 'post'}`;
    return ['during', `only for an emitted event (on = "ns::name")${root}`];
  }
  if (c.on !== undefined && c.config?.on !== undefined) {
    const listens = (Array.isArray(c.config.on) ? c.config.on : [c.config.on]) as unknown[];
    if (!listens.includes(c.on)) return ['config.on', `listens to ${JSON.stringify(listens)}, not to the case's event ${JSON.stringify(c.on)}`];
  }
  if (!eventForm) {
    const i = (c.prev ?? []).findIndex((p) => p.event !== undefined);
    if (i >= 0) return [`prev[${i + 1}].event`, 'only in an event-form case (on = "...")'];
    const stageForm = (key: string, what: string): [string, string] => [key, `only an event-form case (on = "...") ${what}; give on instead of stage`];
    if (e.emit !== undefined) return stageForm('expect.emit', 'emits events');
    if (e.agent_on !== undefined) return stageForm('expect.agent_on', 'has agent_on');
    if (e.redo !== undefined) return stageForm('expect.redo', 'can ask for a redo');
    if (c.redo_count !== undefined) return stageForm('redo_count', 'gets coder_redo_count');
    for (const [i, r] of (c.responses ?? []).entries()) {
      const key = EVENT_RESPONSE_FIELDS.find((k) => r[k] !== undefined);
      if (key) return [`responses[${i + 1}].${key}`, 'only event-form agents receive it (on = "end")'];
    }
    return undefined;
  }
  const { stage, event } = caseTarget(c);
  const prevProblem = prevEventProblem(c.prev ?? [], stage, event);
  if (prevProblem) return prevProblem;
  if (stage === 'post' && e.agent_on !== undefined) {
    return ['expect.agent_on', `the pack honours agent_on only in the start dispatch chain (this case's event ${event} is dispatched at post)`];
  }
  if (stage === 'pre' && e.redo !== undefined) {
    return ['expect.redo', `a redo is asked at post only (on = "end", or an event emitted during end); this case's event ${event} is dispatched at pre`];
  }
  return undefined;
}

/** Checks of one case (or runStage request) that the schema cannot express: [key, message] or undefined. */
export function caseProblem(c: StageInputFields): [string, string] | undefined {
  const eventProblemOf = eventFormProblem(c);
  if (eventProblemOf) return eventProblemOf;
  const { stage } = caseTarget(c);
  const onlyIn = (key: string, stages: SubAgentStage[]): [string, string] =>
    [key, `only used in stage ${stages.join(' and ')} (this case's stage is ${stage})`];
  if (c.prompt !== undefined && c.prompts !== undefined) return ['prompts', 'give prompt or prompts, not both'];
  if (c.task !== undefined && stage !== 'pre_task' && stage !== 'post_task') return onlyIn('task', ['pre_task', 'post_task']);
  if (c.response !== undefined && stage !== 'post_task') return onlyIn('response', ['post_task']);
  if (c.responses !== undefined && stage !== 'post') return onlyIn('responses', ['post']);
  if (c.expect?.response !== undefined && stage !== 'post_task') return onlyIn('expect.response', ['post_task']);
  for (const key of ['name', 'stages'] as const) {
    if (c.config && key in c.config) {
      return [`config.${key}`, `set by the harness (name = the case file's agent, stages = { "${stage}" }); remove it`];
    }
  }
  if (c.params && 'sub_agents' in c.params) {
    return ['params.sub_agents', "set by the harness to this sub-agent's entry; put its extra keys in config"];
  }
  const e = c.expect ?? {};
  // the files a case writes and the files it reads back: one check, so neither can name a host file
  for (const [where, files] of [['files', c.files], ['expect.files', e.files]] as const) {
    for (const key of Object.keys(files ?? {})) {
      const problem = relativeKeyProblem(key);
      if (problem) return [`${where}.${JSON.stringify(key)}`, problem];
    }
  }
  if (e.error !== undefined) {
    try {
      new RegExp(e.error);
    } catch (err) {
      return ['expect.error', `invalid regex: ${(err as Error).message}`];
    }
    for (const key of ['params', 'params_contains', 'prompts', 'prompt', 'response', 'unchanged', 'agent_result', 'sub_agents_next', 'emit', 'agent_on', 'redo'] as const) {
      if (e[key] !== undefined) return [`expect.${key}`, 'cannot be combined with expect.error (a failed stage has no result)'];
    }
  }
  if (e.params && 'sub_agents' in e.params) return ['expect.params.sub_agents', 'sub_agents is never part of the compared params'];
  for (const [i, p] of (c.prev ?? []).entries()) {
    if (!p.name.endsWith('.aip') || nodePath.isAbsolute(p.name) || p.name.split(/[\\/]/).includes('..')) {
      return [`prev[${i + 1}].name`, `expected a workspace-relative .aip path (no leading /, no ..), got '${p.name}'`];
    }
    for (const key of ['name', 'stages', 'on'] as const) {
      if (p.config && key in p.config) return [`prev[${i + 1}].config.${key}`, 'set by the harness; remove it'];
    }
  }
  for (const [i, a] of (e.ai_prompts ?? []).entries()) {
    if (typeof a === 'object') {
      try {
        new RegExp(a.match);
      } catch (err) {
        return [`expect.ai_prompts[${i + 1}].match`, `invalid regex: ${(err as Error).message}`];
      }
    }
  }
  if (c.ai) {
    for (const [i, a] of c.ai.entries()) {
      if (typeof a === 'object' && a.match !== undefined) {
        try {
          new RegExp(a.match);
        } catch (err) {
          return [`ai[${i + 1}].match`, `invalid regex: ${(err as Error).message}`];
        }
      }
    }
  }
  return undefined;
}
