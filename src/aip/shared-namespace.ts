/**
 * A namespace whose functions do not depend on the stage (`aip.json`, `aip.text`, ...): checked once, frozen, and
 * handed to every stage as the same object, whose `aip` table registry.ts then makes once too. A copy per stage
 * cost more than the calls most stages make into it.
 */
import type { AipNamespaceFactory } from './types.ts';

const shared = new WeakSet<object>();

export function sharedNamespace(fns: Record<string, unknown>): AipNamespaceFactory {
  const frozen = Object.freeze(fns);
  shared.add(frozen);
  return () => frozen;
}

/** Whether a factory's namespace is a shared one (the same object at every stage). */
export const isSharedNamespace = (impl: object): boolean => shared.has(impl);
