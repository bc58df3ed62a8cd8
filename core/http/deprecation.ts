/** @module The headers that mark the deprecated getPet operation. */

/** 1 December 2025, as an RFC 9745 structured date (seconds since the epoch). */
export const DEPRECATION = '@1764547200';

/** The removal date, as an HTTP date (RFC 8594). */
export const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';

/** The headers of every getPet answer after authentication, success or error. */
export const deprecationHeaders = (base: string): Record<string, string> => ({
  deprecation: DEPRECATION,
  sunset: SUNSET,
  link: `<${base}/pets>; rel="successor-version"`,
});
