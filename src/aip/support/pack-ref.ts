/** Pack references (`ns@name[$base|$workspace][/sub/path]`) as AIPack parses them. */

/** An agent or pack that cannot be found, or a reference that is not well formed. */
export class AgentNotFoundError extends Error {}

const IDENT = /^[a-zA-Z_][a-zA-Z0-9_-]*$/;

export interface PackRef {
  namespace: string;
  name: string;
  scope?: 'base' | 'workspace';
  subPath?: string;
}

/** `ns@name[$base|$workspace][/sub/path]` */
export function parsePackRef(ref: string): PackRef {
  const read = readPackRef(ref);
  if (typeof read === 'string') throw new AgentNotFoundError(read);
  return read;
}

/**
 * The reference, or what is wrong with it. Does not throw: a glob or path holding an "@" (a prompt folder named
 * `pro@coder`) is tried as a reference at each listing, and an error's stack trace cost more than the listing.
 */
export function readPackRef(ref: string): PackRef | string {
  const at = ref.indexOf('@');
  if (at < 0 || ref.indexOf('@', at + 1) >= 0) return `Invalid pack reference '${ref}': expected exactly one '@' (ns@name[/sub/path])`;
  const namespace = ref.slice(0, at);
  let rest = ref.slice(at + 1);
  let subPath: string | undefined;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    subPath = rest.slice(slash + 1);
    rest = rest.slice(0, slash);
  }
  let scope: PackRef['scope'];
  const dollar = rest.indexOf('$');
  if (dollar >= 0) {
    const s = rest.slice(dollar + 1);
    if (s !== 'base' && s !== 'workspace') return `Invalid pack reference '${ref}': scope must be $base or $workspace`;
    scope = s;
    rest = rest.slice(0, dollar);
  }
  if (!IDENT.test(namespace)) return `Invalid pack reference '${ref}': namespace '${namespace}' must match ${IDENT.source}`;
  if (!IDENT.test(rest)) return `Invalid pack reference '${ref}': name '${rest}' must match ${IDENT.source}`;
  if (subPath !== undefined && (subPath.includes('..') || subPath.includes('$'))) {
    return `Invalid pack reference '${ref}': '..' and '$' are not allowed in the sub path`;
  }
  return { namespace, name: rest, scope, subPath: subPath || undefined };
}
