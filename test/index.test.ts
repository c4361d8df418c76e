import nodePath from 'node:path';
import { describe, expect, it } from 'vitest';
import * as lib from '../src/index.ts';
import { AGENTS } from './harness/helpers.ts';

describe('the library entry (src/index.ts)', () => {
  it('keeps every export of the public API (a removed or renamed one breaks users\' code)', () => {
    const api = [
      'AgentConfigSchema', 'AgentEntriesSchema', 'AgentEntrySchema', 'AgentEntryTableSchema', 'AgentRunError',
      'CASE_FILE_SUFFIX', 'CHECK_TEMPLATES', 'CODER_PARAM_KEYS', 'CONFIG_FILE', 'CONTRACT_LUA_FILE', 'CaseFileError',
      'CaseFileSchema', 'CoderParamListsSchema', 'CoderResponseInputSchema', 'CoderResponsesItemSchema',
      'CoderSummarySchema', 'CoderTaskSchema', 'CommitError', 'ConfigError', 'DEFAULT_AIPACK_VERSION',
      'DEFAULT_ENABLED', 'DEFAULT_ENGINE', 'DEFAULT_GROUP_CONCURRENCY', 'DEFAULT_ON_ERROR', 'DEFAULT_STAGES',
      'DEFAULT_TIMEOUT_MS', 'DeadlineError', 'DiscoveryError', 'ENGINE_NAMES', 'ENTRY_FIELDS', 'ENTRY_KEYS', 'EVENTS',
      'EVENT_FORM_STAGES', 'EVENT_GLOB_DEFAULT_KEYS', 'EVENT_INPUT_EXTRA_FIELDS', 'EVENT_PARAMS_CLEARED',
      'EVENT_STAGES', 'EventHistoryItemSchema', 'EventInputSchemas', 'EventResponsesItemSchema', 'EventSchema',
      'FileChangesStatusSchema', 'GLOB_DEFAULT_KEYS', 'GROUP_KEYS', 'GROUP_TEMPLATES', 'IsolateCrashError',
      'LIST_PARAM_KEYS', 'LuaTableSchema', 'MAX_DISPATCHES', 'MAX_GROUP_CONCURRENCY', 'MAX_GROUP_SIZE', 'MAX_REDOS',
      'MAX_STEPS', 'MESSAGE_TEMPLATES', 'MIN_AIPACK_VERSION', 'NoScriptedResponseError', 'PARALLEL_AGENT',
      'PARALLEL_SAFE_AIPACK_VERSION', 'ParallelGroupSchema', 'ParallelPlaceSchema', 'REPO_PACK', 'RESPONSE_FIELDS',
      'ResponseSchema', 'RunLimitError', 'SANDBOX_ROOT', 'SANDBOX_WS', 'SCHEMAS', 'SCHEMA_NAMES', 'SLOW_MS', 'STAGES',
      'STAGE_ADOPTS', 'ScriptedAi', 'Simulator', 'SubAgentInputSchemas', 'SubAgentStageSchema', 'SuiteStoppedError',
      'Trace', 'WORKBENCH_AGENT_NAMES', 'WORKBENCH_DONE_EVENT', 'affectedContractFiles', 'analyzeEffect', 'checkCase',
      'checkResponse', 'checkValue', 'configStages', 'contractJsonSchemas', 'createOverlayVfs', 'diffValues',
      'discover', 'effectWarnings', 'entryForm', 'eventStage', 'expectedOf', 'fieldsOf', 'fill', 'findConfigFile',
      'findContractFiles', 'formatSuite', 'generateContractLua', 'getEngine', 'groupMessages', 'ignoredFields',
      'isGroupEntry', 'jsonSchemaOf', 'kindOf', 'listsFromLua', 'loadConfig', 'loadContractFile', 'loadEngine',
      'luaEqual', 'luaList', 'luaType', 'matchesFilter', 'messages', 'normalizeEntry', 'normalizeGroup',
      'normalizeList', 'paramsFromLua', 'parseContractFile', 'prepareAgent', 'runCase', 'runContractFile',
      'runContractFiles', 'runContractFilesIsolated', 'runPreparedStage', 'runStage', 'runSuite', 'stageIgnores',
      'starterFiles', 'suggest', 'suiteJson', 'suiteJunit', 'summaryLine', 'tableEntries', 'textDiff',
      'unknownEntryKeys', 'usedIn', 'eventStarter'
    ];
    const missing = api.filter((name) => !(name in lib) || (lib as Record<string, unknown>)[name] === undefined);
    expect(missing).toEqual([]);
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
