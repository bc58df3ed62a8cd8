/** @module The deprecated getPet operation: its headers, and when it goes away. */
import { LRUCache } from 'lru-cache';

/** 1 December 2025, as an RFC 9745 structured date (seconds since the epoch). */
export const DEPRECATION = '@1764547200';

/** The removal date, as an HTTP date (RFC 8594). */
export const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

/** The removal date in milliseconds since the epoch: from then on getPet answers 410 Gone. */
export const SUNSET_TIME = Date.parse(SUNSET);

/** Gives the deprecation headers of a base path. */
export type DeprecationHeaders = (base: string) => Readonly<Record<string, string>>;

/**
 * Creates what gives the headers of every getPet answer after authentication, success or
 * error: when it was deprecated, when it goes, what replaces it, and where a person can read
 * about it. The headers of each base are made once rather than at every getPet call, and
 * kept by the service that made them: one base per service, or one per mount path it is
 * mounted at, a few; bounded all the same (64 bases, LRU).
 */
export const createDeprecationHeaders = (): DeprecationHeaders => {
  const headersOfBase = new LRUCache<string, Readonly<Record<string, string>>>({ max: 64 });
  return (base) => {
    let headers = headersOfBase.get(base);
    if (headers === undefined) {
      headers = Object.freeze({
        deprecation: DEPRECATION,
        sunset: SUNSET,
        link: `<${base}/pets>; rel="successor-version", <${base}/docs#deprecation>; rel="deprecation"; type="text/html"`,
      });
      headersOfBase.set(base, headers);
    }
    return headers;
  };
};
