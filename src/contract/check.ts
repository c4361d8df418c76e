/**
 * The contract's behaviour in TS: normalisation of `sub_agents` entries and validation of responses.
 * These functions interpret the kinds derived from the zod schemas (spec.ts); the generated Lua module
 * interprets the same kinds and must give byte-identical messages (test/contract/lua-gen.test.ts).
 */
import { CHECK_TEMPLATES as T, EVENT_FORM_STAGES, EVENT_STAGES, MESSAGE_TEMPLATES as M, type AgentConfig, type EntryForm, type SubAgentStage } from './schemas.ts';
import { ENTRY_FIELDS, ENTRY_KEYS, RESPONSE_FIELDS, expectedOf, scalarTypeOf, usedIn, type Kind } from './spec.ts';
import { field, isEmptyTable, isGiven, luaEqual, luaList, luaType } from './lua-values.ts';
import { GROUP_KEYS, isGroupEntry, normalizeGroup } from './parallel.ts';

/** Fills `{key}` placeholders in one pass (placeholders inside the values are left alone). */
export function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (m, key: string) =>
    Object.prototype.hasOwnProperty.call(vars, key) ? String(vars[key]) : m,
  );
}

const typeError = (path: string, expected: string, got: string) => fill(T.type, { path, expected, got });

function checkList(k: Kind & { item: Kind; nonEmpty: boolean }, v: unknown, path: string): string | undefined {
  const expected = expectedOf(k);
  const t = luaType(v);
  if (t !== 'table') return typeError(path, expected, t);
  const items = luaList(v);
  if (items === undefined) return typeError(path, expected, T.gotNonList);
  if (k.nonEmpty && items.length === 0) return fill(T.empty, { path });
  for (let i = 0; i < items.length; i++) {
    const err = checkValue(k.item, items[i], `${path}[${i + 1}]`);
    if (err !== undefined) return err;
  }
  return undefined;
}

/** What is wrong with value `v` for kind `k` at `path`, or undefined when it fits. */
export function checkValue(k: Kind, v: unknown, path: string): string | undefined {
  const t = luaType(v);
  switch (k.kind) {
    case 'any':
      return undefined;
    case 'string':
      if (t !== 'string') return typeError(path, expectedOf(k), t);
      if (k.nonEmpty && v === '') return typeError(path, expectedOf(k), T.gotEmptyString);
      return undefined;
    case 'boolean':
    case 'number':
    case 'table':
      return t === k.kind ? undefined : typeError(path, expectedOf(k), t);
    case 'enum':
      if (t !== 'string') return typeError(path, expectedOf(k), t);
      if (!k.values.includes(v as string)) return typeError(path, expectedOf(k), fill(T.gotString, { value: v as string }));
      return undefined;
    case 'list':
      return checkList(k, v, path);
    case 'one_or_list':
      if (t === 'table') return checkList(k, v, path);
      if (t === scalarTypeOf(k.item)) return checkValue(k.item, v, path);
      return typeError(path, expectedOf(k), t);
    case 'object': {
      if (t !== 'table') return typeError(path, expectedOf(k), t);
      for (const f of k.fields) {
        const fv = field(v, f.name);
        if (fv === undefined && f.optional) continue;
        const err = checkValue(f.kind, fv, `${path}.${f.name}`);
        if (err !== undefined) return err;
      }
      return undefined;
    }
    case 'entries': {
      const r = normalizeList(v, path);
      return r.ok ? undefined : r.message;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Section 1: normalisation

export type NormalizeEntryResult = { ok: true; config: AgentConfig } | { ok: false; message: string };
export type NormalizeListResult = { ok: true; configs: AgentConfig[] } | { ok: false; message: string };

/** The normalised value of a checked field: one item -> one-item list, lists copied, an empty table -> {}. */
function settle(k: Kind, v: unknown): unknown {
  if (k.kind === 'one_or_list') return luaType(v) === 'table' ? [...luaList(v)!] : [v];
  if (k.kind === 'list') return [...luaList(v)!];
  if ((k.kind === 'table' || k.kind === 'object') && isEmptyTable(v)) return {};
  return v;
}

/**
 * Normalises one `sub_agents` entry (pack/SUB_AGENTS.md section 1). `label` names the entry in messages
 * (`sub_agents[3]`). The config is a new object; the entry is not modified.
 */
export function normalizeEntry(entry: unknown, label: string): NormalizeEntryResult {
  // a parallel group (section 8) has members instead of a name; its config is typed loosely like every config
  if (isGroupEntry(entry)) return normalizeGroup(entry as Record<string, unknown>, label, normalizeEntry) as unknown as NormalizeEntryResult;
  const t = luaType(entry);
  const copy: Record<string, unknown> = {};
  if (t === 'string') {
    copy.name = entry;
  } else if (t === 'table') {
    if (!Array.isArray(entry)) {
      for (const [key, v] of Object.entries(entry as Record<string, unknown>)) if (v !== undefined) copy[key] = v;
    }
  } else {
    return { ok: false, message: fill(T.badEntry, { label, got: t }) };
  }
  for (const f of ENTRY_FIELDS) {
    if (f.exclusiveWith !== undefined && field(copy, f.name) !== undefined && field(copy, f.exclusiveWith) !== undefined) {
      return { ok: false, message: fill(T.entry, { label, what: fill(T.exclusive, { other: f.exclusiveWith, path: f.name }) }) };
    }
  }
  for (const f of ENTRY_FIELDS) {
    const v = field(copy, f.name);
    if (v === undefined && f.default !== undefined) {
      // a default belongs to its form: `stages` is not filled in for an entry that gives `on`
      if (!ENTRY_FIELDS.some((o) => o.exclusiveWith === f.name && field(copy, o.name) !== undefined)) {
        copy[f.name] = structuredClone(f.default);
      }
      continue;
    }
    if (v === undefined && f.optional) continue;
    const err = checkValue(f.kind, v, f.name);
    if (err !== undefined) return { ok: false, message: fill(T.entry, { label, what: err }) };
    copy[f.name] = settle(f.kind, v);
  }
  return { ok: true, config: copy as AgentConfig };
}

/**
 * The stage an event is dispatched in: start at pre, end at post; any other event is one a sub-agent emitted,
 * dispatched in the stage of the dispatch that emitted it (taken as pre when nothing says otherwise).
 */
export function eventStage(event: string, emittedIn: SubAgentStage = 'pre'): SubAgentStage {
  return (EVENT_STAGES as Record<string, SubAgentStage>)[event] ?? emittedIn;
}

/**
 * The stages a normalised entry can run in: its `stages`, or the stages of the events it listens to (an emitted
 * event can be dispatched in pre and in post).
 */
export function configStages(config: AgentConfig): SubAgentStage[] {
  if (config.on === undefined) return [...(config.stages ?? [])];
  const out: SubAgentStage[] = [];
  for (const e of config.on) {
    const stages: SubAgentStage[] = e in EVENT_STAGES ? [eventStage(e)] : [...EVENT_FORM_STAGES];
    for (const st of stages) if (!out.includes(st)) out.push(st);
  }
  return out;
}

/** The form of a normalised entry (section 7): `on` given = event form. */
export function entryForm(config: unknown): EntryForm {
  return luaType(config) === 'table' && field(config, 'on') !== undefined ? 'event' : 'stage';
}

/** Keys of a table entry that the contract does not define (sorted); they are kept for the agent. */
export function unknownEntryKeys(entry: unknown): string[] {
  if (luaType(entry) !== 'table' || Array.isArray(entry)) return [];
  const known: readonly string[] = isGroupEntry(entry) ? [...ENTRY_KEYS, ...GROUP_KEYS] : ENTRY_KEYS;
  return Object.keys(entry as Record<string, unknown>)
    .filter((k) => (entry as Record<string, unknown>)[k] !== undefined && !known.includes(k))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Normalises a whole `sub_agents` value: nil / null / empty table -> []; anything but a list -> the message
 * `<label> must be a list of agent names or tables`; entries are labelled `<label>[i]` (1-based).
 */
export function normalizeList(value: unknown, label = 'sub_agents'): NormalizeListResult {
  if (value === undefined || value === null) return { ok: true, configs: [] };
  const items = luaType(value) === 'table' ? luaList(value) : undefined;
  if (items === undefined) return { ok: false, message: fill(T.notList, { label }) };
  const configs: AgentConfig[] = [];
  for (let i = 0; i < items.length; i++) {
    const r = normalizeEntry(items[i], `${label}[${i + 1}]`);
    if (!r.ok) return r;
    configs.push(r.config);
  }
  return { ok: true, configs };
}

// ---------------------------------------------------------------------------------------------------------------
// Section 3: responses

/**
 * What is wrong with a sub-agent's response in `stage`, or undefined when it is valid. A nil response is
 * valid. Fields the stage ignores (for the entry's form) are not checked (an ignored field is not an error).
 */
export function checkResponse(stage: SubAgentStage, value: unknown, form: EntryForm = 'stage'): string | undefined {
  if (value === undefined) return undefined;
  const t = luaType(value);
  if (t !== 'table') return fill(T.notTable, { got: t });
  const fields = RESPONSE_FIELDS.filter((f) => usedIn(f, stage, form));
  for (const f of fields) {
    const v = field(value, f.name);
    if (!isGiven(v) && f.optional) continue;
    const err = checkValue(f.kind, v, f.name);
    if (err !== undefined) return err;
  }
  for (const f of fields) {
    if (f.exclusiveWith === undefined || !fields.some((o) => o.name === f.exclusiveWith)) continue;
    if (isGiven(field(value, f.name)) && isGiven(field(value, f.exclusiveWith))) {
      return fill(T.exclusive, { other: f.exclusiveWith, path: f.name });
    }
  }
  return undefined;
}

/**
 * A `sub_agents` list as upstream reads its entries' `on` (section 7): empty event names are dropped and an entry
 * left with none (`on = []`) listens to start. Lax forms: the pack does the same, with one warning per entry
 * naming it and the stricter form. Returns the list (a copy where an entry changed) and the warnings.
 */
export function relaxEntries(value: unknown, label = 'sub_agents'): { value: unknown; warnings: string[] } {
  const items = luaType(value) === 'table' ? luaList(value) : undefined;
  if (!items) return { value, warnings: [] };
  const warnings: string[] = [];
  const out = items.map((entry, i) => {
    if (luaType(entry) !== 'table' || Array.isArray(entry)) return entry;
    const on = luaList(field(entry, 'on'));
    if (!on || luaType(field(entry, 'on')) !== 'table') return entry;
    const kept = on.filter((e) => e !== '');
    const blank = kept.length < on.length;
    if (!blank && kept.length > 0) return entry;
    const where = `${label}[${i + 1}]`;
    const name = String(field(entry, 'name'));
    const events = kept.length > 0 ? kept : ['start'];
    if (!blank) warnings.push(fill(M.laxOnEmpty, { label: where, name }));
    else warnings.push(fill(M.laxOnBlank, { label: where, name, events: `{ ${events.map((e) => JSON.stringify(e)).join(', ')} }` }));
    return { ...(entry as Record<string, unknown>), on: events };
  });
  return { value: warnings.length > 0 ? out : value, warnings };
}

/**
 * An event-form response as upstream reads it (section 7): emit_events given as a string is ignored and empty
 * event names are dropped (lax forms: the pack does the same and prints a warning). Returns the response, a copy
 * when it changed.
 */
export function relaxResponse(value: unknown): unknown {
  if (luaType(value) !== 'table' || Array.isArray(value)) return value;
  const emit = field(value, 'emit_events');
  if (typeof emit === 'string') {
    const copy = { ...(value as Record<string, unknown>) };
    delete copy.emit_events;
    return copy;
  }
  const items = luaType(emit) === 'table' ? luaList(emit) : undefined;
  if (!items || !items.includes('')) return value;
  return { ...(value as Record<string, unknown>), emit_events: items.filter((e) => e !== '') };
}

/**
 * Fields present in a response that `stage` ignores (section 3), sorted: whole fields (`coder_params` in
 * `post`), and keys of a used table field that the stage ignores (`coder_params.working_globs` in `pre_task`).
 * With `input` (the sub-agent's input table), such a key counts only when its value differs from the one the
 * sub-agent received: handing back the params it was given, unchanged, ignores nothing.
 */
export function ignoredFields(stage: SubAgentStage, response: unknown, input?: unknown, form: EntryForm = 'stage'): string[] {
  if (luaType(response) !== 'table') return [];
  const out: string[] = [];
  for (const f of RESPONSE_FIELDS) {
    const v = field(response, f.name);
    if (!isGiven(v)) continue;
    if (!usedIn(f, stage, form)) {
      out.push(f.name);
    } else if (luaType(v) === 'table') {
      const before = input === undefined ? undefined : field(input, f.name);
      for (const key of f.ignoredKeys?.[stage] ?? []) {
        const value = field(v, key);
        if (value === undefined) continue;
        if (input !== undefined && luaEqual(value, field(before, key))) continue;
        out.push(`${f.name}.${key}`);
      }
    }
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
