/** @module The client's memory of recent answers, so a repeated GET costs a 304 instead of the body. */
import { LRUCache } from 'lru-cache';

/** An answer worth keeping: its tag, its body and its Link header. */
export interface CachedAnswer {
  etag: string;
  text: string;
  link: string | null;
}

/** The client's cache of answers by URL. */
export type RevalidationCache = LRUCache<string, CachedAnswer>;

/**
 * The last answers by URL, at most `capacity` of them, the least recently used dropped
 * first. A dashboard polling the same few pages revalidates them with If-None-Match, and an
 * unchanged page comes back as a bodiless 304.
 */
export const createRevalidationCache = (capacity = 64): RevalidationCache => new LRUCache<string, CachedAnswer>({ max: capacity });
