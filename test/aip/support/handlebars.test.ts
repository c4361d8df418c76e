import Handlebars from 'handlebars';
import { describe, expect, it } from 'vitest';
import { renderTemplate, renderValue, TemplateError } from '../../../src/aip/support/handlebars.ts';

describe('renderTemplate', () => {
  it('does not HTML-escape', () => {
    expect(renderTemplate('{{s}} {{{s}}}', { s: '<a href="x">&\'</a>' })).toBe('<a href="x">&\'</a> <a href="x">&\'</a>');
  });

  it('renders missing values as empty (non-strict)', () => {
    expect(renderTemplate('[{{nope}}][{{a.b.c}}]', { a: null })).toBe('[][]');
  });

  it('renders values like handlebars-rust JsonRender', () => {
    const data = { n: null, i: 3, f: 2.5, t: true, arr: ['a', 1, null, { k: 1 }, [2, 3]], obj: { k: 'v' }, empty: {} };
    expect(renderTemplate('{{n}}|{{i}}|{{f}}|{{t}}|{{arr}}|{{obj}}|{{empty}}', data)).toBe('|3|2.5|true|[a, 1, , [object], [2, 3]]|[object]|[object]');
    expect(renderTemplate('{{{arr}}}|{{{obj}}}', data)).toBe('[a, 1, , [object], [2, 3]]|[object]');
    expect(renderTemplate('{{#each arr}}<{{this}}>{{/each}}', data)).toBe('<a><1><><[object]><[2, 3]>');
    expect(renderValue(1e21)).toBe('1e21');
  });

  it('supports \\{{ escapes and raw blocks', () => {
    expect(renderTemplate('\\{{input.path}} = {{input.path}}', { input: { path: 'a.txt' } })).toBe('{{input.path}} = a.txt');
    expect(renderTemplate('{{{{raw}}}}{{data.x}} {{#if y}}{{{{/raw}}}}!', { data: { x: 1 } })).toBe('{{data.x}} {{#if y}}!');
  });

  it('provides the standard helpers', () => {
    const data = { items: [{ path: 'a' }, { path: 'b' }], o: { x: 'X' }, m: { k: 'v' } };
    expect(renderTemplate('{{#each items}}{{@index}}:{{this.path}} {{/each}}', data)).toBe('0:a 1:b ');
    expect(renderTemplate('{{#with o}}{{x}}{{/with}}', data)).toBe('X');
    expect(renderTemplate('{{lookup m "k"}}', data)).toBe('v');
    expect(renderTemplate('{{#unless nope}}u{{/unless}}', data)).toBe('u');
    expect(renderTemplate('a{{log "hidden"}}b', data)).toBe('ab');
  });

  it('uses handlebars-rust truthiness in #if (empty object and 0 are falsy)', () => {
    const t = '{{#if v}}T{{else}}F{{/if}}';
    expect([{}, { a: 1 }, [], [0], 0, 1, '', 'x', null, false].map((v) => renderTemplate(t, { v })).join('')).toBe('FTFTFTFTFF');
    expect(renderTemplate('{{#if v includeZero=true}}T{{else}}F{{/if}}', { v: 0 })).toBe('T');
    expect(renderTemplate('{{#unless v}}U{{/unless}}', { v: {} })).toBe('U');
  });

  it('has eq ne gt gte lt lte', () => {
    const d = { a: { x: [1, 2] }, b: { x: [1, 2] }, s: 'abc' };
    expect(renderTemplate('{{eq a b}} {{ne a b}} {{eq 1 "1"}} {{eq s "abc"}} {{eq nope null}}', d)).toBe('true false false true true');
    expect(renderTemplate('{{gt 5 3}} {{gt 3 5}} {{gte 3 3}} {{lt "a" "b"}} {{lte 4 4}}', d)).toBe('true false true true true');
    // numbers compare with numeric strings; unordered pairs are never gt/lt
    expect(renderTemplate('{{gt 10 "9"}} {{lt "2" 10}} {{gt 1 "x"}} {{lt 1 "x"}} {{gt a 1}}', d)).toBe('true true false false false');
    expect(renderTemplate('{{#if (eq s "abc")}}yes{{/if}}', d)).toBe('yes');
  });

  it('has and or not len', () => {
    const d = { e: {}, l: [1, 2, 3], o: { a: 1, b: 2 }, s: 'héllo' };
    expect(renderTemplate('{{and 1 "x"}} {{and 1 0}} {{or 0 e}} {{or 0 l}} {{not e}} {{not l}}', d)).toBe('true false false true true false');
    // Rust String::len counts UTF-8 bytes
    expect(renderTemplate('{{len l}} {{len o}} {{len s}} {{len 5}} {{len nope}}', d)).toBe('3 2 6 0 0');
  });

  it('throws a TemplateError with the template line on a parse error', () => {
    try {
      renderTemplate('a\nb\n{{#if x}}\nc', {});
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TemplateError);
      expect((e as TemplateError).message).toMatch(/Parse error on line 4/);
      expect((e as TemplateError).templateLine).toBe(4);
    }
    expect(() => renderTemplate('{{eq 1}}', {})).toThrowError(/helper 'eq' needs 2 parameters/);
    expect(() => renderTemplate('{{nohelper 1}}', {})).toThrowError(/Missing helper: "nohelper"/);
  });

  it('leaves the global Handlebars instance untouched', () => {
    renderTemplate('{{len x}}', { x: [1] });
    expect(Handlebars.helpers.len).toBeUndefined();
    expect(Handlebars.compile('{{a}}')({ a: [1, 2] })).toBe('1,2');
    expect(Handlebars.compile('{{a}}')({ a: '<' })).toBe('&lt;');
  });
});
