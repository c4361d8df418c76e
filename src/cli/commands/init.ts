import { exists, makeUserDir, statPath, writeUserFile } from '../../support/host-fs.ts';
import nodePath from 'node:path';
import type { Command } from 'commander';
import { STAGES, type SubAgentStage } from '../../contract/index.ts';
import { setUpLuaTypes } from '../../check/luals.ts';
import { eventStarter, starterFiles, starterWithModel, workbenchStarter } from '../../harness/init-scaffold.ts';
import { suggest } from '../../support/suggest.ts';
import { findWorkspace } from '../../runtime/workspace.ts';
import { UsageError, type SetExit } from '../errors.ts';
import { relativeToCwd } from '../../support/paths.ts';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

interface InitOptions {
  dir: string;
  stage?: string;
  form?: string;
  withModel?: boolean;
  workbench?: boolean;
}

const FORMS = ['stage', 'event'];

/** The starter files the options ask for; a combination that makes no sense is a UsageError. */
function starterFor(base: string, o: InitOptions, agentPath: string) {
  if (o.workbench) {
    // upstream's workbench::done is an event: only the event form listens to it
    if (o.form !== undefined && o.form !== 'event') throw new UsageError(`--workbench: the workbench starter is in the event form (on = "workbench::done"); drop --form ${o.form}`);
    if (o.stage !== undefined) throw new UsageError(`--stage ${o.stage}: the workbench starter has no stages; its entry listens to workbench::done`);
    if (o.withModel) throw new UsageError('--with-model: the model-calling starter is in the stage form; drop --workbench');
    return workbenchStarter(base, agentPath);
  }
  const form = o.form ?? 'stage';
  if (!FORMS.includes(form)) {
    const near = suggest(form, FORMS);
    throw new UsageError(`--form ${form}: expected stage (the seed's stages) or event (upstream pro@coder's on)${near ? `; did you mean ${near}?` : ''}`);
  }
  if (form === 'event') {
    if (o.stage !== undefined) throw new UsageError(`--stage ${o.stage}: the event form has no stages; its entry listens to events (on = ["start", "end"])`);
    if (o.withModel) throw new UsageError('--with-model: the model-calling starter is in the stage form; drop --form event');
    return eventStarter(base, agentPath);
  }
  const stage = o.stage ?? 'pre';
  if (!(STAGES as readonly string[]).includes(stage)) {
    throw new UsageError(`--stage ${stage}: expected one of ${STAGES.join(', ')}`);
  }
  const files = o.withModel ? starterWithModel(base, stage as SubAgentStage, agentPath) : starterFiles(base, stage as SubAgentStage, agentPath);
  if (!files) throw new UsageError(`--with-model: the model-calling starter is a pre_task sub-agent; use --stage pre_task`);
  return files;
}


/**
 * The agent's name in a `sub_agents` entry: its path from the workspace root (the nearest directory above it with
 * `.aipack/`, else the current directory); just its file name when it lies outside.
 */
function entryName(aipFile: string, base: string): string {
  const ws = findWorkspace(nodePath.dirname(aipFile));
  const root = exists(nodePath.join(ws, '.aipack')) ? ws : process.cwd();
  const rel = nodePath.relative(root, aipFile);
  return rel.startsWith('..') || nodePath.isAbsolute(rel) ? `${base}.aip` : rel.split(nodePath.sep).join('/');
}

/** `coder-subagents init <name>`: a working sub-agent and its passing contract cases. */
export function register(program: Command, _setExit: SetExit): void {
  program
    .command('init <name>')
    .description('write a starter sub-agent <name>.aip for one stage, and <name>.contract.toml with passing cases')
    .option('--dir <dir>', 'directory to write them in', '.')
    .option('--stage <stage>', `the stage it runs in: ${STAGES.join(', ')} (default pre)`)
    .option('--form <form>', "stage (the seed's stages, the default) or event (upstream pro@coder's on: start and end)")
    .option('--workbench', "an event-form sub-agent that listens to workbench::done and reads the run's workbench (input.coder_workbench)")
    .option('--with-model', 'a sub-agent that asks a model of its own (# Data, # Instruction, # Output), with scripted answers in its cases (--stage pre_task)')
    .action((name: string, o: InitOptions) => {
      const base = name.endsWith('.aip') ? name.slice(0, -4) : name;
      if (!NAME.test(base)) {
        throw new UsageError(`name '${name}': expected letters, digits, '-' and '_' (e.g. prompt-refiner), no path`);
      }
      const dir = nodePath.resolve(o.dir);
      if (exists(dir) && !statPath(dir).isDirectory()) throw new UsageError(`--dir ${o.dir}: not a directory`);
      const aipFile = nodePath.join(dir, `${base}.aip`);
      const contractFile = nodePath.join(dir, `${base}.contract.toml`);
      const existing = [aipFile, contractFile].filter((f) => exists(f));
      if (existing.length > 0) {
        throw new UsageError(`${existing.map((p: string) => relativeToCwd(p)).join(' and ')} already exist${existing.length === 1 ? 's' : ''}: not overwritten (choose another name or --dir)`);
      }
      const files = starterFor(base, o, entryName(aipFile, base));
      makeUserDir(dir);
      writeUserFile(aipFile, files.aip, { exclusive: true });
      writeUserFile(contractFile, files.contract, { exclusive: true });
      // editor support: the Lua language server completes input., aip.*, CTX with the generated definitions
      let types: string;
      try {
        const t = setUpLuaTypes(process.cwd());
        const what = t.luarc === 'unchanged' ? 'kept .luarc.json' : `${t.luarc} .luarc.json`;
        types = `${what} (Lua types for your editor: ${t.library}${t.copied ? ', written' : ''})`;
      } catch (err) {
        types = `.luarc.json not changed: ${(err as Error).message}`;
      }
      const testDir = relativeToCwd(dir);
      process.stdout.write(
        [
          `created ${relativeToCwd(aipFile)}`,
          `created ${relativeToCwd(contractFile)}`,
          types,
          '',
          'Next steps:',
          `  1. run its cases:      npx coder-subagents test ${testDir}`,
          `  2. edit both files; re-run on save with: npx coder-subagents test ${testDir} --watch`,
          '  3. enable it in the meta block of your coder-prompt.md (name = its path from the workspace root):',
          `       sub_agents = [${files.entry}]`,
          '',
        ].join('\n'),
      );
    });
}
