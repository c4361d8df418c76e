import { expect } from 'vitest';
import { conformance, type Case } from './support.ts';

// aip_web.rs. get/post never reach the network: each case scripts the response the upstream test received.
const W = 'aip_web.rs';
const PAGE = 'https://phet-dev.colorado.edu/html/build-an-atom/0.0.0-3/simple-text-only-test-page.html';
const cases: Case[] = [
  {
    up: `${W}::test_script_aip_web_get_simple_ok`,
    lua: `return aip.web.get("${PAGE}")`,
    web: [{ match: 'simple-text-only-test-page', content: '<p>This page tests that simple text can be translated.</p>', content_type: 'text/html' }],
    check: (v) => {
      const r = v as { content: string; status: number; success: boolean };
      expect(r.content).toContain('This page tests that simple text can be');
      expect(r.status).toBe(200);
      expect(r.success).toBe(true);
    },
  },
  {
    up: `${W}::test_script_aip_web_post_json_ok`,
    lua: 'return aip.web.post("https://postman-echo.com/post", {some = "stuff"}, {parse = true})',
    web: [{ match: 'postman-echo\\.com/post$', method: 'POST', content: '{"json": {"some": "stuff"}}', content_type: 'application/json; charset=utf-8' }],
    check: (v) => expect((v as { content: { json: { some: string } } }).content.json.some).toBe('stuff'),
  },
  {
    up: `${W}::test_script_aip_web_get_invalid_url`,
    lua: 'return aip.web.get("https://this-cannot-go/anywhere-or-can-it.aip")',
    error: ['Fail to do aip.web.get', 'https://this-cannot-go/anywhere-or-can-it.aip'],
  },
  {
    up: `${W}::test_script_aip_web_get_with_headers_capture`,
    lua: 'return aip.web.get("https://postman-echo.com/response-headers?Content-Type=text/plain&Set-Cookie=session1=a;%20HttpOnly")',
    web: [{ match: 'response-headers', content: '{}', headers: { 'content-type': 'text/plain; charset=utf-8', 'set-cookie': 'session1=a; HttpOnly' } }],
    check: (v) => {
      const h = (v as { headers: Record<string, string> }).headers;
      expect(h['content-type']).not.toBe('');
      expect(h['set-cookie']).toBe('session1=a; HttpOnly');
    },
  },
  {
    up: `${W}::test_script_aip_web_parse_url_ok`,
    lua: 'return aip.web.parse_url("https://user:pass@example.com:8080/path/to/resource?key1=val1&key2=val2#fragment")',
    check: (v) =>
      expect(v).toMatchObject({
        scheme: 'https',
        host: 'example.com',
        port: 8080,
        path: '/path/to/resource',
        query: { key1: 'val1', key2: 'val2' },
        fragment: 'fragment',
        username: 'user',
        password: 'pass',
        url: 'https://user:pass@example.com:8080/path/to/resource?key1=val1&key2=val2#fragment',
      }),
  },
  { up: `${W}::test_script_aip_web_parse_url_invalid`, lua: 'return aip.web.parse_url("not a valid url")', error: ["Cannot parse url 'not a valid url'", 'relative URL without a base'] },
  { up: `${W}::test_script_aip_web_parse_url_nil`, lua: 'return aip.web.parse_url(nil)', expect: undefined },
  { up: `${W}::test_script_aip_web_resolve_href_ok_absolute_href`, lua: 'return aip.web.resolve_href("https://another.com/page.html", "https://base.com/docs/")', expect: 'https://another.com/page.html' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_relative_path_href`, lua: 'return aip.web.resolve_href("sub/page.html", "https://base.com/docs/")', expect: 'https://base.com/docs/sub/page.html' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_absolute_path_href`, lua: 'return aip.web.resolve_href("/other/resource", "https://base.com/docs/path/")', expect: 'https://base.com/other/resource' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_scheme_relative_href_https`, lua: 'return aip.web.resolve_href("//cdn.example.com/script.js", "https://base.com/docs/")', expect: 'https://cdn.example.com/script.js' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_scheme_relative_href_http`, lua: 'return aip.web.resolve_href("//cdn.example.com/script.js", "http://base.com/docs/")', expect: 'http://cdn.example.com/script.js' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_nil_href`, lua: 'return aip.web.resolve_href(nil, "https://base.com/docs/")', expect: undefined },
  { up: `${W}::test_script_aip_web_resolve_href_err_invalid_base_url`, lua: 'return aip.web.resolve_href("path", "not-a-base-url")', error: ["aip.web.resolve_href: Invalid base_url 'not-a-base-url'", 'relative URL without a base'] },
  { up: `${W}::test_script_aip_web_resolve_href_ok_empty_href`, lua: 'return aip.web.resolve_href("", "https://base.com/docs/")', expect: 'https://base.com/docs/' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_href_is_fragment`, lua: 'return aip.web.resolve_href("#section1", "https://base.com/page.html")', expect: 'https://base.com/page.html#section1' },
  { up: `${W}::test_script_aip_web_resolve_href_ok_href_is_query`, lua: 'return aip.web.resolve_href("?key=val", "https://base.com/page.html")', expect: 'https://base.com/page.html?key=val' },
  // the UA constants (web_options.rs, registered by init_module since 0.8.6)
  { up: 'aip_web.rs::init_module (UA_AIPACK)', lua: 'return aip.web.UA_AIPACK', expect: 'aipack' },
  { up: 'aip_web.rs::init_module (UA_BROWSER)', lua: 'return type(aip.web.UA_BROWSER) == "string" and aip.web.UA_BROWSER:find("Mozilla/5.0", 1, true) == 1', expect: true },
  { up: 'aip_web.rs::init_module (UA_* absent before 0.8.6)', lua: 'return type(aip.web.UA_AIPACK)', version: '0.8.5', expect: 'nil' },
];

conformance('aip.web', cases);
