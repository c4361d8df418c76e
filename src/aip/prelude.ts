/** The Lua prelude every stage runs first (prelude.lua): `aip.lua.*` and the version's globals. */
import { readText } from '../support/host-fs.ts';
import { aipackGlobalsAt, aipFunctionsAt } from './catalog.ts';
import { formatRustFloat } from './support/rust-float.ts';

export const PRELUDE = readText(new URL('./prelude.lua', import.meta.url));

/** Which prelude parts exist at a version (see prelude.lua). */
export function preludeFeatures(version: string): Record<string, boolean> {
  const globals = new Set(aipackGlobalsAt(version));
  const fns = new Set(aipFunctionsAt(version).map((f) => f.path));
  return {
    null_helpers: globals.has('is_null'),
    type_helpers: globals.has('is_list'),
    merge: fns.has('aip.lua.merge'),
  };
}

/** Host helpers the prelude takes (and removes from the globals) when it loads; see prelude.lua. */
export const PRELUDE_HELPERS = { format_float: formatRustFloat };

/** Globals naming the null sentinel at a version. */
export function nullGlobalsAt(version: string): string[] {
  return aipackGlobalsAt(version).filter((g) => g === 'null' || g === 'Null' || g === 'NULL');
}
