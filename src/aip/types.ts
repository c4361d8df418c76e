import type { Vfs } from '../support/vfs.ts';
import type { Trace } from './support/trace.ts';
import type { LifecycleStage } from './support/lifecycle-stage.ts';
import type { ScriptedCommands, ScriptedWeb } from './support/scripted-io.ts';

/** Everything an `aip.*` namespace needs from the simulated runtime, for one Lua stage. */
export interface StageEnv {
  readonly vfs: Vfs;
  readonly dirs: {
    /** absolute workspace dir (the one holding `.aipack/`) */
    workspace: string;
    /** `<workspace>/.aipack` */
    workspaceAipack: string;
    /** simulated `~/.aipack-base` (never on the user's disk: writes stay in the overlay) */
    baseAipack: string;
    /** simulated home dir (`~`) */
    home: string;
    /** CTX.TMP_DIR */
    tmp: string;
  };
  /** `<pack dir>` for `ns@name`, or undefined when no such pack is installed (docs/aipack.md section 9) */
  findPackDir(namespace: string, name: string): string | undefined;
  readonly stage: LifecycleStage;
  /** 1-based task number in Data/Output, undefined in Before All / After All */
  readonly taskNum?: number;
  readonly agent: {
    /** the name as invoked (CTX.AGENT_NAME) */
    name: string;
    /** absolute .aip path */
    filePath: string;
    /** absolute dir of the .aip */
    dir: string;
    /** absolute pack dir, for pack agents */
    packDir?: string;
  };
  /** CTX.AIPACK_VERSION, e.g. "0.8.15" */
  readonly aipackVersion: string;
  /** nesting depth of the current agent run (0 = top level) */
  readonly depth: number;
  readonly trace: Trace;
  /** `aip.agent.run(name, options)`: returns the RunAgentResponse as plain data; throws LuaError on failure */
  runAgent(name: unknown, options: unknown): unknown;
  /** the run log (Lua `print`) */
  print(text: string): void;
  /** scripted answers for aip.cmd.exec and aip.web.get/post (none: every call fails) */
  readonly scripted?: { commands: ScriptedCommands; web: ScriptedWeb };
}

/** One `aip.<namespace>` table: host functions (see ../engine/values.ts) and constants. */
export type AipNamespaceFactory = (env: StageEnv) => Record<string, unknown>;
