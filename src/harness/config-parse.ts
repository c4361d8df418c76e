/**
 * `coder-subagents.config.toml`: a project's defaults for `coder-subagents test` (flags given on the command line
 * win). Found in the working directory or the nearest directory above it, stopping at the project root (the first
 * directory with a package.json or .git). Unknown keys are errors, with a "did you mean".
 *
 *   paths = ["agents"]              # what `test` runs without path arguments (relative to this file)
 *   engine = "fengari"              # the Lua engine
 *   aipack_version = "0.8.15"       # simulated AIPack version
 *   budget = 5000000                # instruction budget of a case's run tree
 *   strict = true                   # warnings fail the case
 *   order_check = true              # parallel groups: fail a case whose result depends on the members' order
 *   reporter = "junit"              # default | json | junit
 *   output_file = "reports/contract-tests.xml"   # where the reporter writes (relative to this file; inside the project)
 *   slow_ms = 300                   # a case slower than this is flagged slow
 */
import { ENGINE_NAMES, isEngineName } from '../engine/index.ts';
import { isInside, readText, realPathOf } from '../support/host-fs.ts';
import nodePath from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import * as z from 'zod';
import { unknownKeysMessage } from './case-file.ts';
import { relativeToCwd } from '../support/paths.ts';
import { projectRootOf, REPORTERS } from './config-find.ts';

const ConfigSchema = z.strictObject({
  paths: z.array(z.string().min(1)).optional(),
  engine: z.string().optional(),
  aipack_version: z.string().optional(),
  budget: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  strict: z.boolean().optional(),
  order_check: z.boolean().optional(),
  reporter: z.enum(REPORTERS).optional(),
  output_file: z.string().min(1).optional(),
  slow_ms: z.number().int().positive().optional(),
});

export type TestConfig = z.infer<typeof ConfigSchema> & {
  /** the config file (absolute); paths and output_file are already resolved against its directory */
  file: string;
  /**
   * the project the config belongs to (its nearest directory with a package.json or .git, else its own): the
   * report it names is written only below it, a path from the command line anywhere
   */
  project: string;
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads and checks a config file; every problem is a ConfigError naming the file and the key. */
export function loadConfig(file: string): TestConfig {
  const shown = relativeToCwd(file);
  let raw: unknown;
  try {
    raw = parseToml(readText(file));
  } catch (err) {
    if (err instanceof TomlError) throw new ConfigError(`${shown}:${err.line}:${err.column}: invalid TOML: ${err.message.split('\n')[0]}`);
    throw err;
  }
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
    if (issue.code === 'unrecognized_keys') {
      throw new ConfigError(`${shown}: ${unknownKeysMessage(issue.keys, Object.keys(ConfigSchema.shape))}`);
    }
    const key = issue.path.map(String).join('.');
    const detail = issue.code === 'invalid_value' ? `expected one of ${REPORTERS.join(', ')}` : issue.message;
    throw new ConfigError(`${shown}: ${key}: ${detail}`);
  }
  const c = parsed.data;
  if (c.engine !== undefined && !isEngineName(c.engine)) {
    throw new ConfigError(`${shown}: engine: '${c.engine}' is not an engine of this version (expected one of ${ENGINE_NAMES.join(', ')})`);
  }
  const dir = nodePath.dirname(file);
  const project = projectRootOf(dir);
  if (c.output_file !== undefined) {
    // a repository's config must not aim the report at a file of the user's (a shell profile, authorized_keys):
    // the path as written and its real path (symlinks of its existing part resolved) both stay in the project
    const out = nodePath.resolve(dir, c.output_file);
    if (out === project || !isInside(out, project) || !isInside(realPathOf(out), realPathOf(project))) {
      throw new ConfigError(
        `${shown}: output_file: ${JSON.stringify(c.output_file)} leads outside the project ${relativeToCwd(project)} (symlinks resolved); a config file writes its report only inside the project (give --output-file to write elsewhere)`,
      );
    }
  }
  return {
    ...c,
    file,
    project,
    ...(c.paths ? { paths: c.paths.map((p) => nodePath.resolve(dir, p)) } : {}),
    ...(c.output_file ? { output_file: nodePath.resolve(dir, c.output_file) } : {}),
  };
}
