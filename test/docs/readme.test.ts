import { readFileSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { Command } from 'commander';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../src/cli/commands/index.ts';
import { CaseFileSchema, CaseSchema, ExpectSchema, parseContractFile } from '../../src/harness/case-file.ts';
import { runStage } from '../../src/harness/run-stage.ts';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import { REPO_ROOT } from '../../src/runtime/packs.ts';
import { runCli } from '../helpers/cli.ts';
import { tmpDir } from '../harness/helpers.ts';

// The README is what a new user follows literally: its commands, flags, keys and examples must be true.
const README = readFileSync(nodePath.join(REPO_ROOT, 'README.md'), 'utf8');

/** The fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]);
}

/** The README text of one `## ` section. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `section ## ${title}`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

const REGISTERS = await loadCommands();

function program(): Command {
  const p = new Command('coder-subagents');
  for (const register of REGISTERS) register(p, () => {});
  return p;
}

// a command with subcommands (`record import`) is documented with its subcommand's flags
const flagsOf = (cmd: Command): Set<string> =>
  new Set([...cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f)), ...cmd.commands.flatMap((c) => [...flagsOf(c)])]);

const FLAG = /(?:^|[\s[])(--?[a-z][a-z-]*)/g;

/** [command, flags] of every `npx coder-subagents ...` in the README and of every row of the command table. */
function documentedUses(): [string, string[]][] {
  const uses: [string, string[]][] = [];
  for (const m of README.matchAll(/npx coder-subagents ([a-z-]+)([^\n`#&]*)/g)) {
    uses.push([m[1], [...m[2].matchAll(FLAG)].map((f) => f[1])]);
  }
  for (const m of section('Commands').matchAll(/^\| `([a-z-]+)([^`]*)` \|/gm)) {
    uses.push([m[1], [...m[2].matchAll(FLAG)].map((f) => f[1])]);
  }
  return uses;
}

describe('README', () => {
  it('names only commands and flags that exist', () => {
    const p = program();
    const uses = documentedUses();
    expect(uses.length).toBeGreaterThan(15);
    for (const [name, flags] of uses) {
      const cmd = p.commands.find((c) => c.name() === name);
      expect(cmd, `command ${name}`).toBeDefined();
      const known = flagsOf(cmd!);
      for (const f of flags) expect(known.has(f), `${name} ${f}`).toBe(true);
    }
    // every command is in the table
    const table = new Set(uses.map(([n]) => n));
    for (const c of p.commands) expect(table.has(c.name()), `${c.name()} documented`).toBe(true);
  });

  it('lists the options run-agent and run share, and they have them', () => {
    const p = program();
    const para = section('Commands').match(/`run-agent` and `run` also take ([\s\S]*?)\n\n/)?.[1] ?? '';
    const flags = [...para.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]);
    expect(flags).toEqual(['--workspace', '--ai', '--aipack-version', '--write', '--json', '--trace', '--budget', '--timeout', '--report', '--mocks', '--aipack-base']);
    for (const name of ['run-agent', 'run']) {
      const known = flagsOf(p.commands.find((c) => c.name() === name)!);
      for (const f of flags) expect(known.has(f), `${name} ${f}`).toBe(true);
    }
  });

  it('documents every key of a case file, and nothing else', () => {
    const reference = blocks('toml').find((b) => b.includes('[case.expect]') && b.includes('support ='))!;
    const raw = parseToml(reference) as { case: Record<string, unknown>[] };
    const parsed = CaseFileSchema.safeParse(raw);
    expect(parsed.error?.issues ?? []).toEqual([]);
    // the stage form's case, then the event form's; `prompts` is in a comment: a case gives prompt or prompts
    expect(raw.case.map((c) => c.on ?? c.stage)).toEqual(['pre', 'review::done', 'start']);
    const caseKeys = new Set([...raw.case.flatMap((c) => Object.keys(c)), 'prompts']);
    expect([...caseKeys].sort()).toEqual(Object.keys(CaseSchema.shape).sort());
    const expectKeys = new Set(raw.case.flatMap((c) => Object.keys(c.expect as object)));
    expect([...expectKeys].sort()).toEqual(Object.keys(ExpectSchema.shape).sort());
    // the event-form cases are ones a file may hold (the first one lists every stage's keys at once)
    const eventCases = reference.slice(reference.indexOf('[[case]]', reference.indexOf('[[case]]') + 1));
    const events = parseContractFile(`agent = "x.aip"\n${eventCases}`, 'my-agents/x.contract.toml').cases;
    expect(events.map((c) => [c.stage, c.event])).toEqual([['post', 'review::done'], ['pre', 'start']]);
  });

  it('shows a scripted-answers file the runtime reads', () => {
    const ai = blocks('toml').find((b) => b.includes('[[response]]'))!;
    expect(() => ScriptedAi.fromToml(ai, 'README.md')).not.toThrow();
  });

  it('runs its example commands as written', async () => {
    const examples = section('Commands').match(/```sh\n([\s\S]*?)```/)![1].trim().split('\n');
    const runnable = examples.filter((l) => !/ (check|build)\b/.test(l)); // they depend on the state of pack/
    expect(runnable.length).toBe(4);
    for (const line of runnable) {
      const args = line.replace(/^npx coder-subagents /, '').split(/\s+/);
      const r = await runCli(args, REPO_ROOT);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
  });

  it('walks through init, the contract file, a broken agent and the library snippet as it says', async () => {
    const dir = tmpDir();
    const init = await runCli(['init', 'prompt-refiner', '--dir', 'my-agents'], dir);
    expect(init.code).toBe(0);
    const written = readFileSync(nodePath.join(dir, 'my-agents/prompt-refiner.contract.toml'), 'utf8');
    const generated = parseContractFile(written, 'my-agents/prompt-refiner.contract.toml');

    // "this is the first case `init` writes"
    const shown = blocks('toml').find((b) => b.startsWith('agent = "prompt-refiner.aip"\n\n[[case]]'))!;
    const doc = parseContractFile(shown, 'my-agents/prompt-refiner.contract.toml');
    expect(doc.agent).toBe(generated.agent);
    expect(doc.cases[0]).toEqual(generated.cases[0]);

    const passing = await runCli(['test', 'my-agents'], dir);
    expect(passing.code).toBe(0);
    expect(passing.stdout.trimEnd().split('\n').at(-1)).toBe('3 passed, 0 failed');

    // the library snippet, with the agent init wrote
    const r = runStage({ agent: 'my-agents/prompt-refiner.aip', baseDir: dir, stage: 'pre', prompt: 'Fix the login form', config: { config: { focus: 'auth' } } });
    expect(r.ok).toBe(true);
    expect(r.prompts).toEqual(['Fix the login form', 'Focus: auth']);
    expect(r.effect?.params.removed).toEqual([]);

    // "Change the agent's "Focus: " to "Focus on " and `test` shows what differs"
    const agentFile = nodePath.join(dir, 'my-agents/prompt-refiner.aip');
    const agent = readFileSync(agentFile, 'utf8');
    expect(agent).toContain('"Focus: "');
    writeFileSync(agentFile, agent.replace('"Focus: "', '"Focus on "'));
    const broken = await runCli(['test', 'my-agents'], dir);
    expect(broken.code).toBe(1);
    const expected = blocks('text').find((b) => b.includes('1 passed, 2 failed'))!;
    // per-case times vary from run to run
    const trimmed = (s: string) => s.trimEnd().split('\n').map((l) => l.trimEnd().replace(/ \d+ ms( \(slow\))?$/, ''));
    expect(trimmed(broken.stdout)).toEqual(trimmed(expected));
  });
});

describe('README: the error expectation it shows', () => {
  it("matches the agent's own failure, not a syntax error", () => {
    const reference = blocks('toml').find((b) => b.includes('[case.expect]') && b.includes('support ='))!;
    const { case: cases } = parseToml(reference) as { case: { expect: { error: string } }[] };
    const re = new RegExp(cases[0]!.expect.error);
    const dir = tmpDir();
    const agent = (body: string) => {
      writeFileSync(nodePath.join(dir, 'todo-guard.aip'), `# Output\n\n\`\`\`lua\n${body}\n\`\`\`\n`);
      const r = runStage({ agent: 'todo-guard.aip', baseDir: dir, stage: 'post_task', response: 'x -- TODO', budget: 2_000_000 });
      expect(r.ok).toBe(false);
      return r.error!;
    };
    expect(agent('if input.coder_response.content:find("TODO") then\n  return { success = false, error_msg = "the answer adds a TODO" }\nend')).toMatch(re);
    const syntax = agent('if input then return nil edn');
    expect(syntax).toMatch(/^Sub-agent \[todo-guard\.aip\] failed: /);
    expect(syntax).not.toMatch(re);
  });
});

describe('README: Writing a sub-agent and its contract file, in the event form', () => {
  it('shows the first cases `init --form event` writes, and they pass', async () => {
    const dir = tmpDir();
    expect((await runCli(['init', 'focus', '--dir', 'my-agents', '--form', 'event'], dir)).code).toBe(0);
    const shown = blocks('toml').find((b) => b.startsWith('agent = "focus.aip"\n\n[[case]]'))!;
    const doc = parseContractFile(shown, 'my-agents/focus.contract.toml');
    const written = parseContractFile(readFileSync(nodePath.join(dir, 'my-agents/focus.contract.toml'), 'utf8'), 'my-agents/focus.contract.toml');
    expect(doc.cases).toEqual(written.cases.slice(0, 2));
    const r = await runCli(['test', 'my-agents'], dir);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('3 passed, 0 failed');
  });
});

describe('README: A sub-agent that calls a model', () => {
  it('its case is the first case of the --with-model starter, and passes', async () => {
    const dir = tmpDir();
    expect((await runCli(['init', 'advisor', '--dir', 'agents', '--stage', 'pre_task', '--with-model'], dir)).code).toBe(0);
    const shown = section('A sub-agent that calls a model').match(/```toml\n([\s\S]*?)```/)![1]!;
    const doc = parseContractFile(`agent = "advisor.aip"\n${shown}`, 'agents/advisor.contract.toml');
    const written = parseContractFile(readFileSync(nodePath.join(dir, 'agents/advisor.contract.toml'), 'utf8'), 'agents/advisor.contract.toml');
    expect(doc.cases[0]).toEqual({ ...written.cases[0], expect: { prompts: written.cases[0]!.expect.prompts } });
    const r = await runCli(['test', 'agents'], dir);
    expect(r.stdout).toMatch(/\n3 passed, 0 failed/);
  });
});
