/** @module Per-key rate limits, told to clients in the IETF RateLimit draft's fields. */
import { AnimalStoreError } from '../AnimalStoreError.js';

/** A rate limit per API key: at most `limit` requests in each window of `windowSeconds`. */
export interface RateLimitOptions {
  limit: number;
  windowSeconds: number;
}

/** What the limiter decided for one request. */
export interface RateLimitDecision {
  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers), for every answer to the key. */
  headers: Record<string, string>;
  /** Set when the key is over its quota: the 429 to answer with. */
  refusal?: AnimalStoreError;
}

/** Counts requests per key. */
export interface RateLimiter {
  /** Counts a request by the key fingerprinted `key` at wall-clock time `now` (milliseconds): a key keeps its count when the keys are replaced. */
  take(key: string, now: number): RateLimitDecision;
}

const POLICY = 'default';

/**
 * Creates a limiter of fixed windows (aligned to multiples of the window since the epoch),
 * one counter per configured API key: keys never share a quota, and memory holds one small
 * entry per key however many requests arrive. Requests without a valid key are refused
 * before they are counted, so they cannot grow it either.
 */
export const createRateLimiter = ({ limit, windowSeconds }: RateLimitOptions): RateLimiter => {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new TypeError(`A rate limit must be a whole number of requests, 1 or more, not ${limit}.`);
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) {
    throw new TypeError(`A rate limit's window must be a whole number of seconds, 1 or more, not ${windowSeconds}.`);
  }
  const windowMs = windowSeconds * 1000;
  const policy = `"${POLICY}";q=${limit};w=${windowSeconds}`;
  const counters = new Map<string, { window: number; count: number }>();

  return {
    take(key, now) {
      const window = Math.floor(now / windowMs);
      let counter = counters.get(key);
      if (counter?.window !== window) {
        counter = { window, count: 0 };
        counters.set(key, counter);
      }
      counter.count++;
      const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
      const remaining = Math.max(0, limit - counter.count);
      const headers = { 'ratelimit-policy': policy, ratelimit: `"${POLICY}";r=${remaining};t=${resetSeconds}` };
      if (counter.count <= limit) return { headers };
      const refusal = new AnimalStoreError(
        'rate_limited',
        `This API key has made its ${limit} requests for the current ${windowSeconds}-second window; try again in ${resetSeconds} s.`,
        { headers: { 'retry-after': String(resetSeconds) } },
      );
      return { headers, refusal };
    },
  };
};
