/**
 * The conformance runner: AIPack's own Lua tests (`#[cfg(test)]` modules under src/script/aip_modules/ of
 * aipack-ai/aipack), ported as cases. Each case names the upstream test it comes from, runs its Lua snippet as
 * the After All of an agent in a virtual copy of AIPack's test workspace (sandbox.ts), at the AIPack version the
 * expectation belongs to, and checks the upstream assertion.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedAi } from '../../src/runtime/ai.ts';
import type { Mocks } from '../../src/runtime/mocks.ts';
import { Simulator } from '../../src/runtime/simulator.ts';
import { createOverlayVfs } from '../../src/runtime/vfs.ts';
import { BASE_DIR, SANDBOX_DIR, sandboxFiles } from './sandbox.ts';

/** The AIPack version the upstream tests were read at (HEAD 0.8.34-WIP; latest release 0.8.33). */
export const UPSTREAM_VERSION = '0.8.33';

const AGENT_DIR = '/virtual/conformance-agent';

export interface Case {
  /** upstream test: `<file>::<test fn>` (several cases may come from one test) */
  up: string;
  /** Lua of the After All stage */
  lua: string;
  /** the value it returns must deep-equal this (nil -> undefined; empty table -> {}) */
  expect?: unknown;
  /** other checks on the returned value (upstream assert_contains and the like) */
  check?: (value: unknown) => void;
  /** the run must fail with an error containing each of these */
  error?: string | string[];
  /** AIPack version (default UPSTREAM_VERSION) */
  version?: string;
  /** extra workspace files (workspace-relative) */
  files?: Record<string, string>;
  /** scripted [[command]] / [[web]] entries */
  commands?: unknown[];
  web?: unknown[];
  mocks?: Mocks;
}

export interface Skipped {
  up: string;
  why: string;
}

export interface RunResult {
  value: unknown;
  sim: Simulator;
}

export function runCase(c: Pick<Case, 'lua' | 'version' | 'files' | 'commands' | 'web' | 'mocks'>): RunResult {
  const vfs = createOverlayVfs(SANDBOX_DIR, {
    files: { ...sandboxFiles(), ...c.files, [`${AGENT_DIR}/snippet.aip`]: `# After All\n\n\`\`\`\`lua\n${c.lua}\n\`\`\`\`\n` },
  });
  const sim = new Simulator({
    workspaceDir: SANDBOX_DIR,
    // the snippet agent lives beside the sandbox workspace, as a case sandbox's agent may
    readRoots: [AGENT_DIR],
    vfs,
    aipackVersion: c.version ?? UPSTREAM_VERSION,
    ai: ScriptedAi.fromList([], 'conformance', { commands: c.commands, web: c.web }),
    mocks: c.mocks,
    aipackBase: BASE_DIR,
  });
  const outcome = sim.run({ name: `${AGENT_DIR}/snippet.aip`, baseDir: SANDBOX_DIR });
  return { value: outcome.afterAll, sim };
}

/** One describe per namespace; one `it` per case, titled by its upstream test. */
export function conformance(namespace: string, cases: Case[], skipped: Skipped[] = []): void {
  describe(`conformance ${namespace}`, () => {
    const seen = new Map<string, number>();
    for (const c of cases) {
      const n = (seen.get(c.up) ?? 0) + 1;
      seen.set(c.up, n);
      it(`${c.up}${n > 1 ? ` #${n}` : ''}`, () => {
        if (c.error !== undefined) {
          let failure: Error | undefined;
          try {
            runCase(c);
          } catch (e) {
            failure = e as Error;
          }
          expect(failure, 'the run should fail').toBeDefined();
          for (const part of Array.isArray(c.error) ? c.error : [c.error]) expect(failure?.message).toContain(part);
          return;
        }
        const { value } = runCase(c);
        if ('expect' in c) expect(value).toEqual(c.expect);
        c.check?.(value);
        if (!('expect' in c) && !c.check) throw new Error('a case needs expect, check or error');
      });
    }
    // cases left out say why; listed so the count of what is not ported is visible
    for (const s of skipped) it.skip(`${s.up} (not ported: ${s.why})`, () => {});
  });
}
