import { describe, expect, it } from 'vitest';
import { web, UA_AIPACK } from '../../src/aip/web.ts';
import { ScriptedCommands, ScriptedWeb } from '../../src/aip/support/scripted-io.ts';
import type { HostFns } from '../helpers/file-workspace.ts';
import { makeStageEnv } from '../helpers/stage-env.ts';

function webOf(entries: unknown[]) {
  const env = { ...makeStageEnv('/tmp/web-ws'), scripted: { commands: new ScriptedCommands([], 'a.toml'), web: new ScriptedWeb(entries, 'a.toml') } };
  return { w: web(env) as HostFns, env };
}

describe('aip.web', () => {
  it('get answers from the scripted entries; a non-2xx status is not a success; parse reads JSON', () => {
    const { w, env } = webOf([
      { match: 'ok', content: '{"a": 1,}', content_type: 'application/json' },
      { match: 'gone', status: 404, content: 'no' },
    ]);
    expect(w.get('https://x/ok', { parse: true })).toEqual({ success: true, status: 200, url: 'https://x/ok', content: { a: 1 }, content_type: 'application/json' });
    expect(w.get('https://x/gone')).toEqual({ success: false, status: 404, url: 'https://x/gone', content: 'no', error: 'Not a 2xx status code (404)' });
    expect(env.trace.of('note').map((n) => n.data)).toEqual([
      { method: 'GET', url: 'https://x/ok', status: 200 },
      { method: 'GET', url: 'https://x/gone', status: 404 },
    ]);
  });

  it('never goes to the network: an unmatched URL is an error saying how to script it', () => {
    const { w } = webOf([]);
    expect(() => w.get('https://example.com')).toThrow(/^Fail to do aip.web.get for url: https:\/\/example.com\nCause: no scripted web response for GET/);
    expect(() => w.post('https://example.com', 1)).toThrow('Data must be a string or a table');
  });

  it('parse_url and resolve_href compute as the url crate does', () => {
    const { w } = webOf([]);
    expect(w.parse_url('https://u:p@h.io:8080/a/b?x=1#f')).toMatchObject({
      scheme: 'https', host: 'h.io', port: 8080, path: '/a/b', query: { x: '1' }, fragment: 'f', username: 'u', password: 'p', page_url: 'https://h.io:8080/a/b',
    });
    expect(() => w.parse_url('nope')).toThrow("Cannot parse url 'nope'.\nCause: relative URL without a base");
    expect(w.resolve_href('../c', 'https://h.io/a/b/')).toBe('https://h.io/a/c');
    expect(w.resolve_href('mailto:x@y', 'https://h.io/')).toBe('mailto:x@y');
    expect(w.UA_AIPACK).toBe(UA_AIPACK);
  });
});
