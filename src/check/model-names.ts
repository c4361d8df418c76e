// The model names a prompt file gives, checked where they are written: the meta block's `model` and its
// `model_aliases`, each sub-agent entry's (and group member's) `options.model` and `options.model_aliases`. A name
// AIPack would not take as meant is a warning with the name it most probably meant (src/contract/model-names.ts
// says which names those are). The pack warns about the same names when it runs (lua/utils_names.lua).

import nodePath from 'node:path';
import os from 'node:os';
import { parse as parseToml } from 'smol-toml';
import { promptMeta } from '../aip/md.ts';
import { modelNameWarning } from '../contract/model-names.ts';
import { findWorkspace } from '../runtime/workspace.ts';
import { readIfFile, readText } from '../support/host-fs.ts';
import type { Finding } from './lint.ts';

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `[options.model_aliases]` of an AIPack config file, when it has them. */
function configAliases(file: string): Record<string, unknown> {
  const bytes = readIfFile(file);
  if (bytes === undefined) return {};
  try {
    const doc = parseToml(Buffer.from(bytes).toString('utf8')) as { options?: { model_aliases?: unknown } };
    return isTable(doc.options?.model_aliases) ? doc.options.model_aliases : {};
  } catch {
    return {}; // a broken config is AIPack's own error, not a model name's
  }
}

/** A place a model name is written: its label, the name, and the aliases known there. */
interface ModelUse {
  label: string;
  model: unknown;
  aliases: string[];
}

function usesOf(options: unknown, label: string, aliases: string[], out: ModelUse[]): void {
  if (!isTable(options)) return;
  const own = isTable(options.model_aliases) ? options.model_aliases : {};
  const known = [...aliases, ...Object.keys(own)];
  if (options.model !== undefined) out.push({ label: `${label}model`, model: options.model, aliases: known });
  for (const [alias, target] of Object.entries(own).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out.push({ label: `${label}model_aliases.${alias}`, model: target, aliases: known });
}

/** The findings about the model names of one prompt file (root-relative file names). */
export function modelNameFindings(root: string, promptFile: string): Finding[] {
  const text = readText(promptFile);
  let meta: unknown;
  try {
    meta = promptMeta(text);
  } catch {
    return [];
  }
  if (!isTable(meta)) return [];
  const ws = findWorkspace(nodePath.dirname(promptFile));
  // the aliases AIPack merges before the prompt's own: the user's config, then the workspace's
  const base = [
    ...Object.keys(configAliases(nodePath.join(os.homedir(), '.aipack-base', 'config-user.toml'))),
    ...Object.keys(configAliases(nodePath.join(ws, '.aipack', 'config.toml'))),
  ];
  const uses: ModelUse[] = [];
  usesOf(meta, 'meta block ', base, uses);
  const metaAliases = isTable(meta.model_aliases) ? Object.keys(meta.model_aliases) : [];
  const entries = Array.isArray(meta.sub_agents) ? meta.sub_agents : [];
  entries.forEach((entry, i) => {
    if (!isTable(entry)) return;
    const label = `sub_agents[${i + 1}]`;
    usesOf(entry.options, `${label} options.`, [...base, ...metaAliases], uses);
    if (Array.isArray(entry.parallel)) {
      entry.parallel.forEach((m, j) => {
        if (isTable(m)) usesOf(m.options, `${label}: parallel[${j + 1}] options.`, [...base, ...metaAliases], uses);
      });
    }
  });

  const file = nodePath.relative(root, promptFile).split(nodePath.sep).join('/');
  const lines = text.split('\n');
  const findings: Finding[] = [];
  for (const use of uses) {
    if (typeof use.model !== 'string') continue; // a wrong type is the option check's
    const message = modelNameWarning(use.label, use.model, use.aliases);
    if (message === undefined) continue;
    const needle = `"${use.model}"`;
    const line = lines.findIndex((l) => l.includes(needle));
    findings.push({
      file,
      line: line + 1 || 1,
      column: line === -1 ? 1 : lines[line]!.indexOf(needle) + 1,
      rule: 'model-name',
      message,
      severity: 'warning',
    });
  }
  return findings;
}
