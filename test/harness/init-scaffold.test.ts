import { readFileSync } from 'node:fs';
import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheckDetailed } from '../../src/check/index.ts';
import { STAGES } from '../../src/contract/index.ts';
import { STAGE_INPUT_CLASS } from '../../src/contract/lua-classes.ts';
import { parseContractFile } from '../../src/harness/case-file.ts';
import { eventStarter, starterFiles, starterWithModel, workbenchStarter, type StarterFiles } from '../../src/harness/init-scaffold.ts';
import { runContractFile } from '../../src/harness/run-case.ts';
import { tmpDir, write } from './helpers.ts';

/** Writes a starter as `init` does (agents/<name>.aip and its case file) and runs its cases, warnings failing. */
function written(name: string, files: StarterFiles) {
  const dir = tmpDir();
  write(dir, `agents/${name}.aip`, files.aip);
  const file = write(dir, `agents/${name}.contract.toml`, files.contract);
  return { dir, result: runContractFile(file, { strict: true }) };
}

const outcome = (r: ReturnType<typeof runContractFile>) => r.cases.map((c) => [c.name, c.status, c.message]);

describe('the stage-form starters', () => {
  for (const stage of STAGES) {
    it(`${stage}: a commented sub-agent of its stage, with 2-3 cases of that stage that pass without warnings`, () => {
      const files = starterFiles('my-agent', stage, 'agents/my-agent.aip');
      expect(files.aip).toContain(`a \`${stage}\` sub-agent for pro@coder`);
      expect(files.entry).toMatch(new RegExp(`^\\{ name = "agents/my-agent\\.aip", stages = \\["${stage}"\\]`));
      const cases = parseContractFile(files.contract, 'my-agent.contract.toml').cases;
      expect(cases.length).toBeGreaterThanOrEqual(2);
      expect(cases.length).toBeLessThanOrEqual(3);
      expect(new Set(cases.map((c) => c.stage))).toEqual(new Set([stage]));
      const { result } = written('my-agent', files);
      expect(outcome(result)).toEqual(cases.map((c) => [c.name, 'passed', undefined]));
    });
  }

  it('each starter types input with the class of its stage (lua-classes.ts), and fills in its name and path', () => {
    for (const stage of STAGES) {
      const files = starterFiles('my-agent', stage, 'agents/my-agent.aip');
      expect(files.aip).toContain(`\`\`\`lua\n---@param input ${STAGE_INPUT_CLASS[stage]}\n`);
      expect(`${files.aip}${files.contract}`).not.toMatch(/<<\w+>>/);
      expect(files.contract).toContain('agent = "my-agent.aip"');
    }
    expect(starterWithModel('advisor', 'pre_task', 'agents/advisor.aip')!.aip).toContain(`---@param input ${STAGE_INPUT_CLASS.pre_task}\n`);
  });

  it('the model-calling starter is a pre_task one, with scripted answers', () => {
    expect(starterWithModel('advisor', 'pre', 'advisor.aip')).toBeUndefined();
    const files = starterWithModel('advisor', 'pre_task', 'agents/advisor.aip')!;
    expect(files.aip.match(/^# (Data|Instruction|Output)$/gm)).toEqual(['# Data', '# Instruction', '# Output']);
    expect(files.entry).toBe('{ name = "agents/advisor.aip", stages = ["pre_task"], options = { model = "cheap" } }');
    const { result } = written('advisor', files);
    expect(result.cases.map((c) => c.status)).toEqual(['passed', 'passed', 'passed']);
  });

  it('pass the linter, each annotated with the input class of its stage', async () => {
    const dir = tmpDir();
    for (const stage of STAGES) write(dir, `agents/a-${stage}.aip`, starterFiles(`a-${stage}`, stage, `agents/a-${stage}.aip`).aip);
    expect(readFileSync(nodePath.join(dir, 'agents/a-post_task.aip'), 'utf8')).toContain('```lua\n---@param input CoderPostTaskInput\n');
    const r = await runCheckDetailed({ root: dir, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings).toEqual([]);
  });
});

describe('the event-form starter (init --form event)', () => {
  const files = eventStarter('focus', 'agents/focus.aip');

  it('is written as upstream pro@coder\'s README shows: on start and end, coder_prompt, a partial coder_params', () => {
    expect(files.entry).toBe('{ name = "agents/focus.aip", on = ["start", "end"], focus = "auth" }');
    expect(files.aip).toContain('---@param input CoderEventPreInput|CoderEventPostInput');
    expect(files.aip).toContain('coder_params = { context_globs = globs }');
    expect(files.aip).toContain('res.file_changes_status.fail_count');
    expect(files.aip).not.toContain('coder_prompts');
    expect(files.aip).not.toContain('stages');
  });

  it('its cases are event-form cases (start and end) and pass without warnings', () => {
    const cases = parseContractFile(files.contract, 'focus.contract.toml').cases;
    expect(cases.map((c) => [c.stage, c.event])).toEqual([['pre', 'start'], ['pre', 'start'], ['post', 'end']]);
    const { result } = written('focus', files);
    expect(outcome(result)).toEqual(cases.map((c) => [c.name, 'passed', undefined]));
    expect(result.cases.flatMap((c) => c.warnings)).toEqual([]);
  });

  it('passes the linter against both event-form inputs', async () => {
    const dir = tmpDir();
    write(dir, 'agents/focus.aip', files.aip);
    write(dir, 'agents/focus.contract.toml', files.contract);
    const r = await runCheckDetailed({ root: dir, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings).toEqual([]);
  });
});

describe('the workbench starter (init --workbench)', () => {
  const files = workbenchStarter('plan-step', 'agents/plan-step.aip');

  it('listens to workbench::done and reads input.coder_workbench', () => {
    expect(files.entry).toBe('{ name = "agents/plan-step.aip", on = "workbench::done" }');
    expect(files.aip).toContain('---@param input CoderEventPreInput');
    expect(files.aip).toContain('input.coder_workbench');
  });

  it('its cases run on workbench::done, one with a workbench of its own, and pass without warnings', () => {
    const cases = parseContractFile(files.contract, 'plan-step.contract.toml').cases;
    expect(cases.map((c) => [c.stage, c.event])).toEqual([['pre', 'workbench::done'], ['pre', 'workbench::done'], ['pre', 'workbench::done']]);
    const { result } = written('plan-step', files);
    expect(outcome(result)).toEqual(cases.map((c) => [c.name, 'passed', undefined]));
    expect(result.cases.flatMap((c) => c.warnings)).toEqual([]);
  });

  it('passes the linter against the event-form input', async () => {
    const dir = tmpDir();
    write(dir, 'agents/plan-step.aip', files.aip);
    write(dir, 'agents/plan-step.contract.toml', files.contract);
    const r = await runCheckDetailed({ root: dir, paths: ['agents'], minAipackVersion: '0.8.15', renderPack: null });
    expect(r.findings).toEqual([]);
  });
});
