/**
 * The size a value takes once written out as JSON, counted without writing it: a table holding one string many
 * times is written that many times (2,000 references to one 1 MiB string are 2 GB of JSON, though they hold
 * 1 MiB), so what is rendered for output is bounded by this size, never by what the value holds in memory.
 */

/** what a result may take once rendered (JSON, a report, a message between threads) */
export const MAX_RENDERED_BYTES = 64 * 1024 * 1024;

export class RenderTooBigError extends Error {
  constructor(
    readonly what: string,
    readonly why: string,
  ) {
    super(`${what} ${why}`);
    this.name = 'RenderTooBigError';
  }
}

/**
 * The JSON size of `value` (strings by UTF-16 length, every reference counted each time it is written), or a
 * reason it cannot be rendered within `limit`: `over` past the limit (counting stops there), `cycle` when a table
 * holds itself. Each shared object is measured once, so the count takes time in proportion to the distinct values.
 */
export function jsonSize(value: unknown, limit = MAX_RENDERED_BYTES): { size: number } | { over: number } | { cycle: true } {
  const sizes = new Map<object, number>();
  const onPath = new Set<object>();
  let cycle = false;
  const measure = (v: unknown): number => {
    if (v === null || v === undefined) return 4;
    switch (typeof v) {
      case 'string':
        return v.length + 2;
      case 'number':
      case 'bigint':
        return 24;
      case 'boolean':
        return 5;
      case 'object':
        break;
      default:
        return 12;
    }
    const obj = v as object;
    if (ArrayBuffer.isView(obj)) return obj.byteLength * 4 + 2;
    const known = sizes.get(obj);
    if (known !== undefined) return known;
    if (onPath.has(obj)) {
      cycle = true;
      return 0;
    }
    onPath.add(obj);
    let total = 2;
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length && total <= limit && !cycle; i++) total += measure(obj[i]) + 1;
    } else {
      for (const [k, x] of Object.entries(obj)) {
        total += k.length + 4 + measure(x);
        if (total > limit || cycle) break;
      }
    }
    onPath.delete(obj);
    sizes.set(obj, total);
    return total;
  };
  const size = measure(value);
  if (cycle) return { cycle: true };
  return size > limit ? { over: size } : { size };
}

/** Throws a RenderTooBigError naming `what` when `value` cannot be rendered within `limit`. */
export function checkRenderable(value: unknown, what: string, limit = MAX_RENDERED_BYTES): void {
  const r = jsonSize(value, limit);
  const mib = (n: number) => `${Math.ceil(n / 1048576)} MiB`;
  if ('cycle' in r) throw new RenderTooBigError(what, 'holds itself (a table inside itself) and cannot be written out');
  if ('over' in r) {
    throw new RenderTooBigError(what, `would take more than ${mib(limit)} written out (a value it holds several times is written each time); it is not rendered`);
  }
}

/**
 * `value` as JSON, cut at `max` characters (`…` marks a cut): a big value is never written whole to be shortened
 * afterwards. A table inside itself is written `[cycle]`.
 */
export function jsonPrefix(value: unknown, max: number): string {
  let out = '';
  const onPath = new Set<object>();
  const full = () => out.length > max;
  const write = (v: unknown): void => {
    if (full()) return;
    if (v === undefined || v === null || typeof v === 'function' || typeof v === 'symbol') {
      out += v === null ? 'null' : v === undefined ? 'null' : JSON.stringify(String(v));
      return;
    }
    if (typeof v === 'string') {
      out += JSON.stringify(v.length > max ? v.slice(0, max + 1) : v);
      return;
    }
    if (typeof v !== 'object') {
      out += JSON.stringify(v) ?? String(v);
      return;
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      out += JSON.stringify(v) ?? 'null';
      return;
    }
    if (onPath.has(v)) {
      out += '"[cycle]"';
      return;
    }
    onPath.add(v);
    if (Array.isArray(v)) {
      out += '[';
      for (let i = 0; i < v.length && !full(); i++) {
        if (i > 0) out += ',';
        write(v[i]);
      }
      out += ']';
    } else {
      out += '{';
      let first = true;
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        // as JSON.stringify: a key whose value JSON cannot hold is left out
        if (!Object.hasOwn(v, k) || x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
        if (full()) break;
        if (!first) out += ',';
        first = false;
        out += `${JSON.stringify(k)}:`;
        write(x);
      }
      out += '}';
    }
    onPath.delete(v);
  };
  write(value);
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}
