import { describe, expect, it } from 'vitest';
import { hbs } from '../../src/aip/hbs.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import type { HostFunction } from '../../src/engine/values.ts';
import { runLua } from '../helpers/lua.ts';

const h = hbs({} as StageEnv) as Record<string, HostFunction>;

describe('aip.hbs.render', () => {
  it('converts its Lua data as AIPack does for templates: an empty table is an object, a list an array', () => {
    expect(runLua(`return aip.hbs.render('[{{e}}] [{{l}}] {{#if e}}T{{else}}F{{/if}}', { e = {}, l = { 'a', 'b' } })`).value).toBe('[[object]] [[a, b]] F');
  });
  it('renders with data as the root, without HTML escaping', () => {
    expect(h.render('Hello {{name}} <{{tag}}>', { name: 'World & co', tag: 'b' })).toBe('Hello World & co <b>');
    expect(h.render('{{#each items}}- {{this.path}}\n{{/each}}', { items: [{ path: 'a.ts' }, { path: 'b.ts' }] })).toBe(
      '- a.ts\n- b.ts\n',
    );
    expect(h.render('[{{missing}}]', {})).toBe('[]');
    expect(h.render('plain', undefined)).toBe('plain');
  });
  it('raises template errors as "aip.hbs.render failed."', () => {
    expect(() => h.render('{{#if x}}never closed', {})).toThrow(/^aip\.hbs\.render failed\. /);
    expect(() => h.render(undefined, {})).toThrow(/aip\.hbs\.render: expected 'template' to be a string/);
  });
});
