/** @module Builds the header records of answers on the hot path. */

/**
 * A new header record with `base`'s entries, then `more`'s (which win): what
 * `{ ...base, ...more }` makes. Built by assignment because V8 before 12 (Node 20)
 * takes a slow path for a spread followed by more properties, many times slower than the
 * assignment, and a request builds several records. Header names are the service's own, never a client's,
 * so no name is `__proto__`.
 */
export const withHeaders = (base: Readonly<Record<string, string>>, more?: Readonly<Record<string, string>>): Record<string, string> =>
  Object.assign({}, base, more);
