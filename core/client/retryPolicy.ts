/** @module When the client tries a failed call again, and how long it waits first. */

/** How the client retries; every field is optional. */
export interface RetryOptions {
  /** Tries in all, the first included; 4 by default. 1 turns retries off. */
  attempts?: number;
  /** Milliseconds before the first retry; doubled for each later one; 200 by default. */
  baseDelay?: number;
  /** The longest wait between tries, in milliseconds; 3,000 by default. A Retry-After longer than this ends the retries. */
  maxDelay?: number;
}

/** A retry policy with every field filled in. */
export type RetryPolicy = Required<RetryOptions>;

/** The defaults: four tries over about a second and a half, enough for a flaky Wi-Fi hop or a restart. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelay: 200, maxDelay: 3_000 };

/**
 * Statuses worth another try: the service could not store (503) or was briefly out of reach
 * behind a proxy (502, 504), a rate limit (429), or the first request with this
 * Idempotency-Key is still in flight (409). Anything else will answer the same again.
 */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([409, 429, 502, 503, 504]);

/** Tells whether an answer with this status may be tried again. */
export const isRetryableStatus = (status: number): boolean => RETRYABLE_STATUSES.has(status);

/**
 * Milliseconds to wait before try number `attempt + 1`, or `undefined` to stop: exponential
 * backoff with jitter (so a crowd of kiosks does not retry in step), or what Retry-After asks
 * for when the service said so, unless that is longer than `maxDelay`.
 */
export const delayBeforeRetry = (policy: RetryPolicy, attempt: number, retryAfter: string | null): number | undefined => {
  if (attempt >= policy.attempts) return undefined;
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) {
    const asked = Number(retryAfter) * 1000;
    return asked <= policy.maxDelay ? asked : undefined;
  }
  const ceiling = Math.min(policy.maxDelay, policy.baseDelay * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
};
