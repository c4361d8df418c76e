import { hostFn } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';

/** `aip.flow.*` only builds directive tables; the runtime acts when a stage returns one (docs/aipack.md section 3). */
const directive = (kind: string, data?: unknown) => ({ _aipack_: data === undefined ? { kind } : { kind, data } });

/**
 * AIPack keeps the argument as the Lua value it is and converts it only when the stage returns the directive, with
 * mlua's serializer; `serde` argument conversion gives the same data (`{}` stays an object, `{1, 2, x = 3}` a list).
 */
const serdeArgs = { argMode: 'serde' } as const;

export const flow: AipNamespaceFactory = () => ({
  skip: hostFn((reason?: unknown) => directive('Skip', reason === undefined ? {} : { reason }), serdeArgs),
  redo: () => directive('Redo'),
  redo_run: () => directive('Redo'),
  before_all_response: hostFn((arg?: unknown) => directive('BeforeAllResponse', arg ?? {}), serdeArgs),
  data_response: hostFn((arg?: unknown) => directive('DataResponse', arg ?? {}), serdeArgs),
});
