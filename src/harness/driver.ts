/**
 * The driver agent: a small agent placed (as a virtual file) inside the coder pack's directory, so it is a pack
 * agent and `require` finds the pack's own `lua/` modules. It holds no pipeline logic of its own: it calls the
 * functions the coder's stages call (utils_before_all `run_pre` / `prepare_run` / `build_inputs`, utils_data
 * `prepare_task`, utils_output `run_post_task` / `task_info`, utils_changes `answer_text`, utils_after_all
 * `run_post` / `redo_or_nil`), so a
 * case's sub-agent gets the input the pack builds, and its answer is adopted as the pack adopts it.
 *
 * A `pre` case is Before All's `pre` run over the case's entries. A later stage begins from the case's params: Before
 * All runs no sub-agent there (the entries are only normalised, as it keeps them), then the stage under test runs
 * as the coder runs it.
 *
 * Its single input:
 *   { stage, event?, params, prompts, prompt_dir, entries, task?, response?, responses? }
 * (`entries`: the `prev` stand-ins of the case, then the entry under test; `event`: the root event of an
 * event-form case's dispatch; `responses[i]`: a task's answer as the case gives it)
 * Its output:
 *   { ok = true, params, prompts, response = <post_task: the text the coder applies> | nil, configs,
 *     redo = { requested, started } | nil }
 *   | { ok = false, error = message, raised = bool }
 */
import { readText } from '../support/host-fs.ts';

/** File name of the driver inside the pack dir (a name no real pack file has). */
export const DRIVER_FILE = '__contract_driver__.aip';

/** The driver agent's file (driver.aip, beside this module): the case reaches it as the agent's `input`. */
export const DRIVER_AIP = readText(new URL('./driver.aip', import.meta.url));
