/**
 * The pool of an engine's states given back by close(), for the next createState of the same engine and template
 * (state-put-back.ts puts a state back as the sandbox left it before it waits here).
 */
import type { StateOptions } from './engine.ts';

/**
 * States given back by close(), restored to how the sandbox left them (restorePristine), for the next createState
 * of the same engine: a stage then costs the set-up of its own globals, not a new VM with its libraries and the
 * sandbox's Lua. A few are kept (a chain of sub-agent calls nests one state per level that runs at once).
 */
export class StatePool<S extends { readonly templateKey: string; takeFor(options: StateOptions): void; restorePristine(): boolean }> {
  /** by template key; the least recently used key first */
  private readonly free = new Map<string, S[]>();
  private count = 0;
  /** `evicted` is told of each state dropped to make room: the pool owns it then, and nothing else will close it */
  constructor(
    private readonly max: number,
    private readonly evicted: (s: S) => void = () => {},
  ) {}

  /** a pooled state of `options`' template taken for `options`, or undefined */
  take(options: StateOptions): S | undefined {
    const key = options.template?.key ?? '';
    const list = this.free.get(key);
    const s = list?.pop();
    if (!s) return undefined;
    this.count--;
    if (list?.length === 0) this.free.delete(key);
    s.takeFor(options);
    return s;
  }

  /** true when `s` was restored and kept; false: the caller disposes of it */
  give(s: S): boolean {
    if (!s.restorePristine()) return false;
    if (this.count >= this.max) {
      // the states of the least recently given template make room
      const [oldest, list] = this.free.entries().next().value as [string, S[]];
      const dropped = list.shift() as S;
      this.count--;
      if (list.length === 0) this.free.delete(oldest);
      this.evicted(dropped);
    }
    const list = this.free.get(s.templateKey) ?? [];
    this.free.delete(s.templateKey);
    list.push(s);
    this.free.set(s.templateKey, list);
    this.count++;
    return true;
  }
}
