/**
 * `aip.web.*`: `parse_url` / `resolve_href` as AIPack computes them (WHATWG URLs, like Rust's `url` crate),
 * the `UA_*` strings, and `get` / `post` answered from the scripted `[[web]]` entries: no network, ever.
 */
import { LuaError, isPlainObject, luaTypeName, optionsArg } from '../engine/values.ts';
import type { AipNamespaceFactory } from './types.ts';
import { parseRelaxedJson, toJsonText } from './json.ts';
import { withArgChecks } from './arg-checks.ts';

export const UA_AIPACK = 'aipack';
export const UA_BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** Rust's url crate words a scheme-less input as "relative URL without a base". */
function urlCause(input: string, e: unknown): string {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(input) ? (e as Error).message : 'relative URL without a base';
}

function parseUrl(s: string | undefined): Record<string, unknown> | undefined {
  if (s === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(s);
  } catch (e) {
    throw new LuaError(`Cannot parse url '${s}'.\nCause: ${urlCause(s, e)}`);
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  const host = url.hostname === '' ? undefined : url.hostname;
  const port = url.port === '' ? undefined : Number(url.port);
  let pageUrl = `${url.protocol.slice(0, -1)}://${host ?? ''}`;
  if (port !== undefined) pageUrl += `:${port}`;
  pageUrl += url.pathname;
  return {
    scheme: url.protocol.slice(0, -1),
    host,
    port,
    path: url.pathname,
    query: Object.keys(query).length > 0 ? query : undefined,
    fragment: s.includes('#') ? url.hash.slice(1) : undefined,
    username: url.username,
    password: url.password === '' ? undefined : url.password,
    url: url.href,
    page_url: pageUrl,
  };
}

function resolveHref(href: string | undefined, base: unknown): string | undefined {
  if (href === undefined) return undefined;
  if (typeof base !== 'string') throw new LuaError(`aip.web.resolve_href: base_url must be a string, got ${luaTypeName(base)}`);
  try {
    if (new URL(href).protocol !== '') return href;
  } catch {
    // not absolute: joined with the base below
  }
  let baseUrl: URL;
  try {
    baseUrl = new URL(base);
  } catch (e) {
    throw new LuaError(`aip.web.resolve_href: Invalid base_url '${base}'.\nCause: ${urlCause(base, e)}`);
  }
  try {
    return new URL(href, baseUrl).href;
  } catch (e) {
    throw new LuaError(`aip.web.resolve_href: Failed to join href '${href}' with base_url '${base}'.\nCause: ${(e as Error).message}`);
  }
}

export const web: AipNamespaceFactory = (env) => {
  const request = (method: 'GET' | 'POST', urlV: string, options: unknown): Record<string, unknown> => {
    const fn = `aip.web.${method.toLowerCase()}`;
    const o = optionsArg(options, fn);
    const answer = env.scripted?.web.answer(method, urlV);
    env.trace.record({ kind: 'note', depth: env.depth, agent: env.agent.name, topic: 'web', data: { method, url: urlV, status: answer?.status } });
    if (!answer) {
      throw new LuaError(
        `Fail to do ${fn} for url: ${urlV}\nCause: no scripted web response for ${method} ${urlV}\n` +
          "(add a [[web]] entry whose 'match' regex matches this URL; aip.web never goes to the network)",
      );
    }
    const success = answer.status >= 200 && answer.status < 300;
    const ct = answer.content_type;
    let content: unknown = answer.content;
    if (o.parse === true && ct?.startsWith('application/json')) {
      try {
        content = parseRelaxedJson(answer.content);
      } catch (e) {
        throw new LuaError(`Failed to parse response body as JSON: ${(e as Error).message}`);
      }
    }
    const out: Record<string, unknown> = { success, status: answer.status, url: urlV, content };
    if (ct !== undefined) out.content_type = ct;
    if (answer.headers && Object.keys(answer.headers).length > 0) out.headers = answer.headers;
    if (!success) out.error = `Not a 2xx status code (${answer.status})`;
    return out;
  };
  return withArgChecks('web', {
    UA_AIPACK,
    UA_BROWSER,
    parse_url: parseUrl,
    resolve_href: resolveHref,
    get: (url: string, options?: unknown) => request('GET', url, options),
    post: (url: string, data: unknown, options?: unknown) => {
      if (typeof data !== 'string' && !isPlainObject(data) && !Array.isArray(data)) throw new LuaError('Data must be a string or a table');
      if (typeof data !== 'string') toJsonText(data, '', 'aip.web.post'); // the body must serialize, as in AIPack
      return request('POST', url, options);
    },
  });
};
