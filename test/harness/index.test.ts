import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import * as lib from '../../src/index.ts';
import { AGENTS } from './helpers.ts';

describe('the library entry (src/index.ts)', () => {
  it('exports the harness, the effect analysis, the contract and the simulator', () => {
    for (const name of [
      'runStage',
      'runCase',
      'runContractFile',
      'runSuite',
      'suiteJunit',
      'discover',
      'loadConfig',
      'loadContractFile',
      'analyzeEffect',
      'effectWarnings',
      'checkResponse',
      'normalizeList',
      'ignoredFields',
      'messages',
      'STAGES',
      'Simulator',
      'ScriptedAi',
      'createOverlayVfs',
      'REPO_PACK',
    ] as const) {
      expect(lib[name], name).toBeDefined();
    }
  });

  it('runStage and runContractFile work from it, as in a user test file', () => {
    const r: lib.StageResult = lib.runStage({ agent: 'prompt-refiner.aip', baseDir: AGENTS, prompt: 'Fix it', config: { focus: 'auth' } });
    expect(r.ok).toBe(true);
    expect(r.prompts).toEqual(['Fix it', 'Focus: auth']);
    expect(lib.checkResponse('pre', r.rawResponse)).toBeUndefined();
    const file: lib.ContractFileResult = lib.runContractFile(nodePath.join(AGENTS, 'answer-cleaner.contract.toml'));
    expect(file.cases.map((c) => [c.name, c.status, c.message])).toEqual([
      ['removes DEBUG lines', 'passed', undefined],
      ['leaves a clean answer alone', 'passed', undefined],
    ]);
  });
});
