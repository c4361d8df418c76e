/**
 * `aip.hbs.render(template, data)`: the prompt engine (docs/aipack.md section 11) with `data` as the root context.
 * `data` is converted with the mlua serializer rules (`serde` mode: an empty table is `{}`).
 */
import { hostFn, LuaError } from '../engine/values.ts';
import { renderTemplate, TemplateError } from './support/handlebars.ts';
import type { AipNamespaceFactory } from './types.ts';
import { withArgChecks } from './arg-checks.ts';
import { sharedNamespace } from './shared-namespace.ts';

function render(template: string, data: unknown): string {
  try {
    return renderTemplate(template, data === undefined ? null : data);
  } catch (e) {
    if (e instanceof TemplateError) throw new LuaError(`aip.hbs.render failed. ${e.message}`);
    throw e;
  }
}

const HBS = withArgChecks('hbs', { render: hostFn(render, { argMode: 'serde' }) });

export const hbs: AipNamespaceFactory = sharedNamespace(HBS);
