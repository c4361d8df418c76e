/**
 * Compiled chunks by name and source, for both engines: a fresh stage no longer re-parses the prelude, the pack
 * modules and the agent chunks. Looked up by name first, then the source compared as it is (text, or a file's
 * bytes by memcmp): no key is built from the source, so a lookup neither copies nor hashes a whole module.
 */
interface Entry<V> {
  source: string | Uint8Array;
  value: V;
}

/** sources kept per chunk name (a file edited between runs has a few versions) */
const PER_NAME = 4;

export class ChunkCache<V> {
  private readonly byName = new Map<string, Entry<V>[]>();
  private count = 0;
  constructor(private readonly limit: number) {}

  get(name: string, source: string | Uint8Array): V | undefined {
    const entries = this.byName.get(name);
    if (!entries) return undefined;
    for (const e of entries) if (sameSource(e.source, source)) return e.value;
    return undefined;
  }

  set(name: string, source: string | Uint8Array, value: V): void {
    let entries = this.byName.get(name);
    if (!entries) {
      if (this.count >= this.limit) this.evictOldestName();
      entries = [];
      this.byName.set(name, entries);
    }
    // a copy of bytes: the caller's buffer may be reused
    entries.unshift({ source: typeof source === 'string' ? source : source.slice(), value });
    this.count++;
    if (entries.length > PER_NAME) {
      entries.pop();
      this.count--;
    }
  }

  private evictOldestName(): void {
    const oldest = this.byName.keys().next();
    if (oldest.done) return;
    this.count -= (this.byName.get(oldest.value) as Entry<V>[]).length;
    this.byName.delete(oldest.value);
  }
}

function sameSource(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
