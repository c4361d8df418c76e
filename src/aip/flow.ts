import type { AipNamespaceFactory } from './types.ts';

/** `aip.flow.*` only builds directive tables; the runtime acts when a stage returns one (RUNTIME.md section 3). */
const directive = (kind: string, data?: unknown) => ({ _aipack_: data === undefined ? { kind } : { kind, data } });

export const flow: AipNamespaceFactory = () => ({
  skip: (reason?: unknown) => directive('Skip', reason === undefined ? {} : { reason }),
  redo: () => directive('Redo'),
  redo_run: () => directive('Redo'),
  before_all_response: (arg?: unknown) => directive('BeforeAllResponse', arg ?? {}),
  data_response: (arg?: unknown) => directive('DataResponse', arg ?? {}),
});
