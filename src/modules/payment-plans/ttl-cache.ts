/**
 * A small time-bounded cache: an entry lives `ttlMs` (monotonic time, not the app clock), at most
 * `maxEntries` are kept (the oldest goes first), concurrent misses share one load, and a load that
 * fails or finds nothing is not kept.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: Promise<V | undefined>; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    const value = load();
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    value.then(
      (found) => found === undefined && this.forget(key, value),
      () => this.forget(key, value),
    );
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  private forget(key: K, value: Promise<V | undefined>): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}
