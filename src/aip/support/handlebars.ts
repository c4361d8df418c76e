/**
 * Handlebars rendering as AIPack does it with handlebars-rust (docs/aipack.md section 11): no HTML escaping,
 * non-strict, the handlebars-rust built-in helpers, and handlebars-rust's way of printing non-string values.
 *
 * Value printing: handlebars JS appends values with JS string coercion ("a,b", "[object Object]"). We swap
 * the compiler of our own environment (Handlebars.create(), nothing global is touched) for a subclass whose
 * `append` routes every printed value through `renderValue`, which follows handlebars-rust's JsonRender.
 * Remaining differences: JS cannot tell a Lua float 3.0 from the integer 3 (both print "3"), and
 * `{{#each}}` over an object iterates in insertion order (serde_json may sort keys; docs/aipack.md section 7.0).
 */
import { createRequire } from 'node:module';
import type Handlebars from 'handlebars';

// loaded on the first render: most CLI runs (and `--version`) never render a template
const loadHandlebars = () => createRequire(import.meta.url)('handlebars') as typeof Handlebars;

export class TemplateError extends Error {
  constructor(
    message: string,
    /** 1-based line inside the template, when handlebars reported one */
    readonly templateLine?: number,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** handlebars-rust JsonRender: null -> "", arrays "[a, b]" (elements rendered the same way), objects "[object]". */
export function renderValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value).replace('e+', 'e');
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return '[' + value.map(renderValue).join(', ') + ']';
  if (typeof value === 'object') {
    // SafeString from a helper
    const html = (value as { toHTML?: unknown }).toHTML;
    if (typeof html === 'function') return String(html.call(value));
    return '[object]';
  }
  return String(value);
}

/** handlebars-rust JsonTruthy (used by if/unless/and/or/not): empty object and 0 are falsy. */
function truthy(value: unknown, includeZero: boolean): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (includeZero) return !Number.isNaN(value);
    // f64::is_normal: not zero, subnormal, infinite or NaN
    return Number.isFinite(value) && Math.abs(value) >= 2.2250738585072014e-308;
  }
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** serde_json Value equality (numbers by value: JS has one number type). */
function jsonEqual(a: unknown, b: unknown): boolean {
  a = a === undefined ? null : a;
  b = b === undefined ? null : b;
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, (b as unknown[])[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as never)[k], (b as never)[k]));
  }
  return false;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** handlebars-rust compare_json: numbers, strings, bools, and number vs numeric string; anything else is unordered. */
function compareJson(a: unknown, b: unknown): number | undefined {
  const cmp = (x: number | string | boolean, y: number | string | boolean) => (x < y ? -1 : x > y ? 1 : 0);
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) || Number.isNaN(b) ? undefined : cmp(a, b);
  if (typeof a === 'string' && typeof b === 'string') return cmp(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return cmp(a, b);
  if (typeof a === 'number' && typeof b === 'string') return JSON_NUMBER.test(b) ? cmp(a, Number(b)) : undefined;
  if (typeof a === 'string' && typeof b === 'number') return JSON_NUMBER.test(a) ? cmp(Number(a), b) : undefined;
  return undefined;
}

type HelperOptions = Handlebars.HelperOptions;

/** Splits helper arguments from the trailing options object and checks the count like handlebars-rust. */
function params(name: string, args: unknown[], min: number): unknown[] {
  const values = args.slice(0, -1);
  if (values.length < min) {
    throw new Error(`helper '${name}' needs ${min} parameter${min === 1 ? '' : 's'}, got ${values.length}`);
  }
  return values;
}

const RENDER_HELPER = '__aip_render_value__';

interface JsCompiler {
  pushSource(source: unknown): void;
  appendToBuffer(source: unknown[]): unknown;
  aliasable(name: string): unknown;
  popStack(): unknown;
}
type JsCompilerCtor = new (...args: unknown[]) => JsCompiler;

function createEnvironment(): typeof Handlebars {
  const hb = loadHandlebars().create();
  const env = hb as unknown as { JavaScriptCompiler: JsCompilerCtor };
  const Base = env.JavaScriptCompiler;

  class RustValueCompiler extends Base {
    // Every printed value (mustaches, block results, partials) goes through renderValue. The runtime wraps
    // helpers and decorates their last argument (the options), hence the trailing dummy `{}`.
    append(): void {
      this.pushSource(this.appendToBuffer([this.aliasable(`container.helpers.${RENDER_HELPER}`), '(', this.popStack(), ', {})']));
    }
    appendEscaped(): void {
      this.append();
    }
  }
  // Child programs are compiled with `new this.compiler()`.
  (RustValueCompiler.prototype as unknown as { compiler: unknown }).compiler = RustValueCompiler;
  env.JavaScriptCompiler = RustValueCompiler;

  hb.registerHelper(RENDER_HELPER, (value: unknown) => renderValue(value));
  // `{{{{raw}}}}...{{{{/raw}}}}`: the block body is already kept verbatim by the parser.
  hb.registerHelper('raw', function (this: unknown, options: HelperOptions) {
    return options.fn(this);
  });
  // handlebars-rust logs through the `log` crate; nothing reaches the prompt or the console.
  hb.registerHelper('log', () => undefined);

  const conditional = (positive: boolean) =>
    function (this: unknown, ...args: unknown[]) {
      const options = args[args.length - 1] as HelperOptions;
      const [value] = params(positive ? 'if' : 'unless', args, 1);
      const includeZero = options.hash?.includeZero === true;
      return truthy(value, includeZero) === positive ? options.fn(this) : options.inverse(this);
    };
  hb.registerHelper('if', conditional(true));
  hb.registerHelper('unless', conditional(false));

  hb.registerHelper('eq', (...a: unknown[]) => {
    const [x, y] = params('eq', a, 2);
    return jsonEqual(x, y);
  });
  hb.registerHelper('ne', (...a: unknown[]) => {
    const [x, y] = params('ne', a, 2);
    return !jsonEqual(x, y);
  });
  const ordered = (name: string, test: (c: number) => boolean) =>
    hb.registerHelper(name, (...a: unknown[]) => {
      const [x, y] = params(name, a, 2);
      const c = compareJson(x, y);
      return c !== undefined && test(c);
    });
  ordered('gt', (c) => c > 0);
  ordered('gte', (c) => c >= 0);
  ordered('lt', (c) => c < 0);
  ordered('lte', (c) => c <= 0);
  hb.registerHelper('and', (...a: unknown[]) => params('and', a, 1).every((v) => truthy(v, false)));
  hb.registerHelper('or', (...a: unknown[]) => params('or', a, 1).some((v) => truthy(v, false)));
  hb.registerHelper('not', (...a: unknown[]) => !truthy(params('not', a, 1)[0], false));
  hb.registerHelper('len', (...a: unknown[]) => {
    const [v] = params('len', a, 1);
    if (Array.isArray(v)) return v.length;
    // Rust String::len is the UTF-8 byte length
    if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
    if (typeof v === 'object' && v !== null) return Object.keys(v).length;
    return 0;
  });
  return hb;
}

let env: typeof Handlebars | undefined;
/**
 * handlebars-rust sees only the data's own keys. Saying so explicitly (rather than leaving handlebars' default)
 * also keeps handlebars from printing "Access has been denied" on the user's console.
 */
const NO_PROTO_ACCESS: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };
const compiled = new Map<string, Handlebars.TemplateDelegate>();
const CACHE_LIMIT = 256;

function compile(template: string): Handlebars.TemplateDelegate {
  let fn = compiled.get(template);
  if (!fn) {
    // handlebars' own fallback hooks are "known helpers" it calls directly; handlebars-rust has no such names, so they
    // are ordinary (missing) variables here, as there
    fn = (env ??= createEnvironment()).compile(template, { noEscape: true, strict: false, knownHelpers: { helperMissing: false, blockHelperMissing: false } });
    if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(template, fn);
  }
  return fn;
}

/** Renders `template` with `data` as the root context, like `aip.hbs.render`. Throws TemplateError. */
export function renderTemplate(template: string, data: unknown): string {
  try {
    return compile(template)(data, NO_PROTO_ACCESS);
  } catch (e) {
    const err = e as { message?: unknown; lineNumber?: unknown };
    const message = typeof err.message === 'string' ? err.message : String(e);
    let line = typeof err.lineNumber === 'number' ? err.lineNumber : undefined;
    const m = /^Parse error on line (\d+)/.exec(message);
    if (m) line = Number(m[1]);
    throw new TemplateError(message, line);
  }
}
