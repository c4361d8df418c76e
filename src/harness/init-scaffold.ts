/**
 * Starter files written by `coder-subagents init`: a small working sub-agent for one stage, commented for
 * editing, and a case file whose cases pass against it. Each starter is a pair of files in starters/ (the agent,
 * its case file) where `<<name>>` stands for the agent's name and `<<path>>` for its path from the workspace root.
 */
import type { SubAgentStage } from '../contract/index.ts';
import { readText } from '../support/host-fs.ts';

export interface StarterFiles {
  aip: string;
  contract: string;
  /** an example `sub_agents` entry for the coder prompt's meta block */
  entry: string;
}

/** The starter `starters/<kind>.aip` and its case file, for the agent `name` at `path`. */
function starter(kind: string, name: string, path: string): StarterFiles {
  const fill = (text: string) => text.split('<<name>>').join(name).split('<<path>>').join(path);
  const aip = fill(readText(new URL(`./starters/${kind}.aip`, import.meta.url)));
  const contract = fill(readText(new URL(`./starters/${kind}.contract.toml`, import.meta.url)));
  // the entry the agent's own description shows
  const entry = /^ {4}sub_agents = \[(.*)\]$/m.exec(aip)?.[1];
  if (entry === undefined) throw new Error(`starters/${kind}.aip: no 'sub_agents = [...]' line in its description`);
  return { aip, contract, entry };
}

/** The starter of a sub-agent that asks its own model (`init --with-model`): pre_task only, for now. */
export function starterWithModel(name: string, stage: SubAgentStage, path: string): StarterFiles | undefined {
  return stage === 'pre_task' ? starter('pre_task-with-model', name, path) : undefined;
}

/** The starter files of a sub-agent `name` for `stage`; `path` is the agent's path from the workspace root. */
export function starterFiles(name: string, stage: SubAgentStage, path: string): StarterFiles {
  return starter(stage, name, path);
}

/**
 * The event-form starter (`init --form event`): written as upstream pro@coder's README shows a sub-agent, so it runs
 * unchanged under upstream's pack. At start it returns only the params it changes (they are merged) and a new
 * coder_prompt; at end it reads each answer's file_changes_status.
 */
export function eventStarter(name: string, path: string): StarterFiles {
  return starter('event', name, path);
}

/**
 * The workbench starter (`init --workbench`): an event-form sub-agent on `workbench::done` that reads
 * input.coder_workbench (here: points the instruction at the workbench's plan when it has content).
 */
export function workbenchStarter(name: string, path: string): StarterFiles {
  return starter('workbench', name, path);
}
