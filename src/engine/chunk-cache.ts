/**
 * Compiled chunks by name and source, for both engines: a fresh stage no longer re-parses the prelude, the pack
 * modules and the agent chunks. Looked up by name first, then the source compared as it is (text, or a file's
 * bytes by memcmp): no key is built from the source, so a lookup neither copies nor hashes a whole module.
 *
 * The cache lives as long as the process (a `test` worker runs thousands of cases), so it is bounded in bytes as
 * well as in entries: a case that compiles big chunks (a `load` of a generated 16 MiB string, a huge agent) must
 * not leave them held for every later case, which would then meet the worker's heap limit through no fault of
 * its own. A chunk too big to keep beside the others is not kept at all.
 */
interface Entry<V> {
  source: string | Uint8Array;
  value: V;
  bytes: number;
}

/** sources kept per chunk name (a file edited between runs has a few versions) */
const PER_NAME = 4;
/** bytes a cache keeps by default: the prelude, the pack's modules and many agents fit many times over */
export const CHUNK_CACHE_BYTES = 64 * 1024 * 1024;

/** What a source weighs in memory: a JS string two bytes a character, bytes as they are. */
export const sourceBytes = (source: string | Uint8Array): number => (typeof source === 'string' ? source.length * 2 : source.byteLength);

export class ChunkCache<V> {
  private readonly byName = new Map<string, Entry<V>[]>();
  private count = 0;
  private held = 0;

  /**
   * `limit` entries and `maxBytes` bytes at most; `weigh` tells what an entry holds (default: twice its source,
   * the source kept for the comparison and a compiled form of about its size).
   */
  constructor(
    private readonly limit: number,
    private readonly maxBytes = CHUNK_CACHE_BYTES,
    private readonly weigh: (source: string | Uint8Array, value: V) => number = (source) => 2 * sourceBytes(source),
  ) {}

  /** bytes the cache holds now (as weighed) */
  get bytes(): number {
    return this.held;
  }

  /** entries the cache holds now */
  get size(): number {
    return this.count;
  }

  get(name: string, source: string | Uint8Array): V | undefined {
    const entries = this.byName.get(name);
    if (!entries) return undefined;
    for (const e of entries) if (sameSource(e.source, source)) return e.value;
    return undefined;
  }

  set(name: string, source: string | Uint8Array, value: V): void {
    const bytes = this.weigh(source, value);
    // one chunk may take an eighth of the cache at most: a one-off giant would push out everything else
    if (bytes > this.maxBytes / 8) return;
    let entries = this.byName.get(name);
    if (!entries) {
      if (this.count >= this.limit) this.evictOldestName();
      entries = [];
      this.byName.set(name, entries);
    }
    // a copy of bytes: the caller's buffer may be reused
    entries.unshift({ source: typeof source === 'string' ? source : source.slice(), value, bytes });
    this.count++;
    this.held += bytes;
    if (entries.length > PER_NAME) {
      const dropped = entries.pop() as Entry<V>;
      this.count--;
      this.held -= dropped.bytes;
    }
    while (this.held > this.maxBytes && this.byName.size > 1) this.evictOldestName(name);
  }

  /** Drops the oldest name's entries (never `keep`'s, the one just set). */
  private evictOldestName(keep?: string): void {
    for (const [oldest, entries] of this.byName) {
      if (oldest === keep) continue;
      this.count -= entries.length;
      for (const e of entries) this.held -= e.bytes;
      this.byName.delete(oldest);
      return;
    }
  }
}

function sameSource(a: string | Uint8Array, b: string | Uint8Array): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
}
