import { describe, expect, it } from 'vitest';
import { hbs } from '../../src/aip/hbs.ts';
import type { StageEnv } from '../../src/aip/types.ts';
import { HOST_OPTIONS, type HostFunction } from '../../src/engine/values.ts';

const h = hbs({} as StageEnv) as Record<string, HostFunction>;

describe('aip.hbs.render', () => {
  it('asks for serde conversion of its arguments (empty table -> {})', () => {
    expect(h.render[HOST_OPTIONS]).toEqual({ argMode: 'serde' });
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
