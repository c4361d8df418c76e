// The names a prompt file's `sub_agents` gives, checked before anything runs: the events entries listen to and the
// events their agents emit, and the keys of each entry. The pack warns about the same names when it runs them
// (lua/utils_names.lua); here they are found in the file, with the line they are written on.
//
// - an event that is neither one the pack sends (`start`, `end`) nor a sub-agent's `ns::event` never runs: an error
//   (`on = "strat"`: did you mean 'start'?);
// - an `ns::event` listened to that no agent of the prompt emits, and one emitted that no entry listens to: warnings
//   naming the closest event on the other side (an agent may emit an event the checker cannot see);
// - entry keys: the same rules as the pack's warning (a stage-form entry's own keys, a misspelt contract key on any
//   entry or member; a built-in's settings are never warned).

import { readText } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { promptMeta } from '../aip/md.ts';
import {
  BUILTIN_ENTRY_KEYS,
  ENTRY_KEYS,
  EVENT_STAGES,
  fill,
  MESSAGE_TEMPLATES,
  messages,
  normalizeList,
  unknownEntryKeys,
  WORKBENCH_DONE_EVENT,
  type AgentConfig,
} from '../contract/index.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { suggest } from '../support/suggest.ts';
import type { Finding } from './lint.ts';
import { resolveAgentFile } from './sub-agent-stages.ts';


const SENT = Object.keys(EVENT_STAGES);
const hint = (near: string | undefined) => (near === undefined ? '' : fill(MESSAGE_TEMPLATES.didYouMean, { near }));
const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The events an agent's source emits: the string literals of its `emit_events = { ... }` tables. */
export function emittedEvents(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/emit_events\s*=\s*\{([^}]*)\}/g)) {
    for (const s of m[1]!.matchAll(/"([^"\\\n]*)"|'([^'\\\n]*)'/g)) out.push(s[1] ?? s[2]!);
  }
  return out;
}

/** The warnings about one raw entry's keys (see lua/utils_names.lua for the same rules at run time). */
function keyMessages(entry: Record<string, unknown>, label: string, eventForm: boolean, member: boolean): string[] {
  const own: readonly string[] = (BUILTIN_ENTRY_KEYS as Record<string, readonly string[]>)[String(entry.name)] ?? [];
  const out: string[] = [];
  for (const key of unknownEntryKeys(entry)) {
    if (own.includes(key)) continue;
    const near = suggest(key, ENTRY_KEYS, { affix: false });
    if (near !== undefined) out.push(fill(MESSAGE_TEMPLATES.unknownEntryKeyNear, { label, key, near }));
    else if (!eventForm && !member) out.push(messages.unknownEntryKey(label, key));
  }
  return out;
}

/** The findings about the names of one prompt file's `sub_agents` (root-relative file names). */
export function subAgentNameFindings(root: string, promptFile: string): Finding[] {
  const text = readText(promptFile);
  let meta: unknown;
  try {
    meta = promptMeta(text);
  } catch {
    return [];
  }
  const raw = isTable(meta) ? meta.sub_agents : undefined;
  const list = normalizeList(raw);
  if (!list.ok || !Array.isArray(raw)) return [];
  const file = nodePath.relative(root, promptFile).split(nodePath.sep).join('/');
  const lines = text.split('\n');
  const at = (needle: string, message: string, severity?: 'warning'): Finding => {
    const line = lines.findIndex((l) => l.includes(needle));
    return {
      file,
      line: line + 1 || 1,
      column: line === -1 ? 1 : lines[line]!.indexOf(needle) + 1,
      rule: 'sub-agent-name',
      message,
      ...(severity ? { severity } : {}),
    };
  };
  const findings: Finding[] = [];

  // keys
  raw.forEach((entry, i) => {
    if (!isTable(entry)) return;
    const label = `sub_agents[${i + 1}]`;
    const eventForm = entry.on !== undefined;
    for (const m of keyMessages(entry, label, eventForm, false)) findings.push(at(/'([^']+)'/.exec(m)![1]!, m, 'warning'));
    if (Array.isArray(entry.parallel)) {
      entry.parallel.forEach((m, j) => {
        if (!isTable(m)) return;
        for (const msg of keyMessages(m, `${label}: parallel[${j + 1}]`, eventForm, true)) findings.push(at(/'([^']+)'/.exec(msg)![1]!, msg, 'warning'));
      });
    }
  });

  // events listened to, and emitted by the agents of event-form entries
  const ws = findWorkspace(nodePath.dirname(promptFile));
  const listened = new Map<string, string>(); // event -> label of the first entry listening
  const emitted = new Map<string, string>(); // event -> the agent that emits it
  list.configs.forEach((c: AgentConfig, i) => {
    if (c.on === undefined) return;
    const label = `sub_agents[${i + 1}]`;
    const name = typeof c.name === 'string' ? c.name : 'parallel group';
    for (const event of c.on) {
      if (!listened.has(event)) listened.set(event, label);
      if (!SENT.includes(event) && event !== WORKBENCH_DONE_EVENT && !event.includes('::')) {
        findings.push(at(`"${event}"`, fill(MESSAGE_TEMPLATES.eventNeverSent, { label, name, event, hint: hint(suggest(event, SENT, { affix: false })) })));
      }
    }
    const members = Array.isArray(c.parallel) ? (c.parallel as AgentConfig[]) : [c];
    for (const m of members) {
      if (typeof m.name !== 'string' || m.name.includes('@')) continue;
      const agent = resolveAgentFile(nodePath.resolve(ws, m.name));
      if (agent === undefined) continue; // agent-not-found says so
      for (const e of emittedEvents(readText(agent))) if (!emitted.has(e)) emitted.set(e, m.name);
    }
  });
  const custom = [...listened.keys()].filter((e) => e.includes('::') && e !== WORKBENCH_DONE_EVENT);
  for (const event of custom) {
    if (emitted.has(event)) continue;
    const near = suggest(event, [...emitted.keys()], { affix: false });
    findings.push(
      at(
        `"${event}"`,
        `${listened.get(event)} listens to '${event}', which no sub-agent of this prompt emits${hint(near)}${near ? ` (${emitted.get(near)} emits it)` : ''}`,
        'warning',
      ),
    );
  }
  for (const [event, agent] of emitted) {
    if (listened.has(event)) continue;
    const near = suggest(event, custom, { affix: false });
    findings.push(at(agent, `${agent} emits '${event}', which no entry of this prompt listens to${hint(near)}`, 'warning'));
  }
  return findings;
}
