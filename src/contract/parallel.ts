/**
 * Parallel groups: `{ parallel = [entries], concurrency, on_error, stages | on, enabled }` in `sub_agents`.
 *
 * The group's own keys are a zod schema like every entry; normalisation is here in TS and, from the same data,
 * in the generated Lua (lua-gen.ts, `C.normalize_group`), with byte-identical messages (test/contract/lua-gen.test.ts).
 * Fan-in (combining the members' answers) is the pack's job (lua/utils_parallel.lua); its messages are here.
 */
import * as z from 'zod';
import { CHECK_TEMPLATES as T } from './schemas.ts';
import { field, luaList, luaType } from './lua-values.ts';

/** At most this many members in one group. */
export const MAX_GROUP_SIZE = 16;
/** `concurrency`: how many members run at once (1..MAX_GROUP_CONCURRENCY, default DEFAULT_GROUP_CONCURRENCY). */
export const MAX_GROUP_CONCURRENCY = 16;
export const DEFAULT_GROUP_CONCURRENCY = 4;
export const ON_ERROR = ['fail', 'continue'] as const;
export type OnError = (typeof ON_ERROR)[number];
export const DEFAULT_ON_ERROR: OnError = 'fail';
/** AIPack before this version could freeze on nested runs inside concurrent inputs: groups run one at a time there. */
export const PARALLEL_SAFE_AIPACK_VERSION = '0.8.17';
/** The pack agent that runs a group's members as the inputs of one run. */
export const PARALLEL_AGENT = 'parallel';

/** Keys a member must not give: the group's apply to every member. */
export const GROUP_OWNED_KEYS = ['stages', 'on'] as const;
/** Keys a group may give besides the common entry keys (`enabled`, `stages`, `on`). */
export const GROUP_KEYS = ['parallel', 'concurrency', 'on_error'] as const;

/** The group's own keys (the members are entries as in section 1). */
export const ParallelGroupSchema = z
  .looseObject({
    parallel: z.array(z.unknown()).min(1).max(MAX_GROUP_SIZE).meta({ description: `the members: sub-agent entries (strings or tables), 1 to ${MAX_GROUP_SIZE}` }),
    concurrency: z.number().int().min(1).max(MAX_GROUP_CONCURRENCY).default(DEFAULT_GROUP_CONCURRENCY).meta({ description: 'how many members run at once' }),
    on_error: z.enum(ON_ERROR).default(DEFAULT_ON_ERROR).meta({ description: 'fail: any failed member fails the group; continue: the others are combined' }),
  })
  .meta({ title: 'parallel group' });

/** A normalised group: its members are normalised entries carrying the group's stages (and `on`). */
export interface GroupConfig {
  parallel: Record<string, unknown>[];
  enabled: boolean;
  /** stage form */
  stages?: string[];
  /** event form */
  on?: string[];
  concurrency: number;
  on_error: OnError;
  [key: string]: unknown;
}

/** Wording of group validation and fan-in messages (TS and Lua fill the same templates). */
export const GROUP_TEMPLATES = {
  notList: '{path} must be a list of sub-agent entries, got {got}',
  tooMany: '{path} has {count} members, at most {max} are allowed',
  nested: '{path}: a parallel group cannot contain another group',
  memberOwns: "{path}: a member of a parallel group cannot give its own '{key}' (the group's applies to every member)",
  groupOptions: "options: give options on the members of a parallel group, not on the group",
  range: '{path} must be an integer from {min} to {max}, got {got}',
  onError: '{path} must be "fail" or "continue", got {got}',
  conflict: 'Parallel group [{index}]: {a} and {b} both change {what}',
  rewrite: 'Parallel group [{index}]: Sub-agent [{name}] returned {field}, which a member of a parallel group cannot do (a group cannot rewrite the pipeline)',
  failed: 'Parallel group [{index}] failed ({failed} of {size} members failed):{causes}',
  cause: '\n- {message}',
  oldAipack: 'WARNING: Parallel group [{index}]: AIPack {current} can freeze on nested runs in concurrent inputs (fixed in {safe}), so its {size} members run one at a time',
} as const;

const fillT = (template: string, vars: Record<string, string | number>) =>
  template.replace(/\{([A-Za-z0-9_]+)\}/g, (m, key: string) => (Object.prototype.hasOwnProperty.call(vars, key) ? String(vars[key]) : m));

/** How a value is named in a range/enum message: strings quoted, numbers as is, other types by their Lua type. */
function gotOf(v: unknown): string {
  const t = luaType(v);
  if (t === 'string') return fillT(T.gotString, { value: v as string });
  // a whole number is shown as written; other numbers by their type (JS and Lua print fractions differently)
  if (t === 'number' && Number.isInteger(Number(v)) && Math.abs(Number(v)) < 1e9) return String(Number(v));
  return t;
}

/** true when `entry` is a table in group form (it gives `parallel`). */
export function isGroupEntry(entry: unknown): boolean {
  return luaType(entry) === 'table' && !Array.isArray(entry) && field(entry, 'parallel') !== undefined;
}

/**
 * Normalises a group entry. `normalizeEntry` normalises one ordinary entry (the contract's own, passed in to keep
 * this module below check.ts). Errors read `<label>: <what>`.
 */
export function normalizeGroup(
  entry: Record<string, unknown>,
  label: string,
  normalizeEntry: (entry: unknown, label: string) => { ok: true; config: Record<string, unknown> } | { ok: false; message: string },
): { ok: true; config: GroupConfig } | { ok: false; message: string } {
  const bad = (what: string) => ({ ok: false as const, message: fillT(T.entry, { label, what }) });
  if (field(entry, 'name') !== undefined) return bad(fillT(T.exclusive, { other: 'name', path: 'parallel' }));
  if (field(entry, 'options') !== undefined) return bad(GROUP_TEMPLATES.groupOptions);
  const raw = field(entry, 'parallel');
  const items = luaType(raw) === 'table' ? luaList(raw) : undefined;
  if (items === undefined) return bad(fillT(GROUP_TEMPLATES.notList, { path: 'parallel', got: luaType(raw) === 'table' ? T.gotNonList : luaType(raw) }));
  if (items.length === 0) return bad(fillT(T.empty, { path: 'parallel' }));
  if (items.length > MAX_GROUP_SIZE) return bad(fillT(GROUP_TEMPLATES.tooMany, { path: 'parallel', count: items.length, max: MAX_GROUP_SIZE }));
  // the group's common keys (enabled, stages, on) are checked as an entry's, under a stand-in name
  const own: Record<string, unknown> = { name: 'parallel' };
  for (const [k, v] of Object.entries(entry)) if (v !== undefined && k !== 'parallel' && k !== 'concurrency' && k !== 'on_error') own[k] = v;
  const common = normalizeEntry(own, label);
  if (!common.ok) return common;
  const concurrency = field(entry, 'concurrency');
  if (concurrency !== undefined) {
    const n = typeof concurrency === 'bigint' ? Number(concurrency) : concurrency;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_GROUP_CONCURRENCY) {
      return bad(fillT(GROUP_TEMPLATES.range, { path: 'concurrency', min: 1, max: MAX_GROUP_CONCURRENCY, got: gotOf(concurrency) }));
    }
  }
  const onError = field(entry, 'on_error');
  if (onError !== undefined && !(ON_ERROR as readonly unknown[]).includes(onError)) {
    return bad(fillT(GROUP_TEMPLATES.onError, { path: 'on_error', got: gotOf(onError) }));
  }
  // the members take the group's form: its events (event form), else its stages
  const stages = common.config.stages as string[] | undefined;
  const on = common.config.on as string[] | undefined;
  const members: Record<string, unknown>[] = [];
  for (let i = 0; i < items.length; i++) {
    const path = `parallel[${i + 1}]`;
    const item = items[i];
    if (isGroupEntry(item)) return bad(fillT(GROUP_TEMPLATES.nested, { path }));
    for (const key of GROUP_OWNED_KEYS) {
      if (luaType(item) === 'table' && field(item, key) !== undefined) return bad(fillT(GROUP_TEMPLATES.memberOwns, { path, key }));
    }
    const r = normalizeEntry(item, `${label}.${path}`);
    if (!r.ok) return r;
    const member: Record<string, unknown> = { ...r.config };
    if (on !== undefined) {
      delete member.stages;
      member.on = [...on];
    } else {
      member.stages = [...(stages ?? [])];
    }
    members.push(member);
  }
  const config: GroupConfig = {
    ...common.config,
    parallel: members,
    enabled: common.config.enabled as boolean,
    ...(stages !== undefined ? { stages } : {}),
    concurrency: concurrency === undefined ? DEFAULT_GROUP_CONCURRENCY : Number(concurrency),
    on_error: (onError as OnError | undefined) ?? DEFAULT_ON_ERROR,
  };
  delete config.name;
  return { ok: true, config };
}

export const groupMessages = {
  conflict: (index: number, a: string, b: string, what: string) => fillT(GROUP_TEMPLATES.conflict, { index, a, b, what }),
  rewrite: (index: number, name: string, fieldName: string) => fillT(GROUP_TEMPLATES.rewrite, { index, name, field: fieldName }),
  failed: (index: number, size: number, causes: string[]) =>
    fillT(GROUP_TEMPLATES.failed, { index, size, failed: causes.length, causes: causes.map((message) => fillT(GROUP_TEMPLATES.cause, { message })).join('') }),
};
