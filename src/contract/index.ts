// The sub_agents contract: zod schemas (the single source), the behaviour derived from them, and messages.
export * from './schemas.ts';
export { normalizeEntry, normalizeList, configStages, eventStage, entryForm, checkResponse, relaxResponse, relaxEntries, ignoredFields, checkValue, fill, unknownEntryKeys } from './check.ts';
export type { NormalizeEntryResult, NormalizeListResult } from './check.ts';
export { messages } from './messages.ts';
export { ENTRY_FIELDS, ENTRY_KEYS, RESPONSE_FIELDS, kindOf, fieldsOf, expectedOf, stageIgnores, usedIn, laxIn, type Kind, type Field } from './spec.ts';
export { luaType, luaList, luaEqual, tableEntries, type LuaTypeName } from './lua-values.ts';
export { contractJsonSchemas, jsonSchemaOf, SCHEMAS, SCHEMA_NAMES } from './json-schema.ts';
export { generateContractLua, CONTRACT_LUA_FILE } from './lua-gen.ts';
export { listsFromLua, paramsFromLua, LIST_PARAM_KEYS, CoderParamListsSchema, CoderSummarySchema } from './lists.ts';
export {
  normalizeGroup,
  isGroupEntry,
  groupMessages,
  ParallelGroupSchema,
  MAX_GROUP_SIZE,
  MAX_GROUP_CONCURRENCY,
  DEFAULT_GROUP_CONCURRENCY,
  DEFAULT_ON_ERROR,
  GROUP_TEMPLATES,
  GROUP_KEYS,
  PARALLEL_SAFE_AIPACK_VERSION,
  PARALLEL_AGENT,
  type GroupConfig,
  type OnError,
} from './parallel.ts';
