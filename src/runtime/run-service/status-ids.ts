import { LruMap } from "../lru.js";

/** Remembers, per issue, which comments are status comments: an event costs one request per run, not a listing. */
export class StatusCommentCache {
  private readonly ids: LruMap<string, string[]>;
  constructor(max = 1000) {
    this.ids = new LruMap(max);
  }

  get(key: string): string[] | undefined {
    return this.ids.get(key);
  }

  set(key: string, ids: string[]): void {
    this.ids.set(key, ids);
  }

  add(key: string, id: string): void {
    const ids = this.ids.get(key);
    if (ids && !ids.includes(id)) this.ids.set(key, [...ids, id]);
  }
}
