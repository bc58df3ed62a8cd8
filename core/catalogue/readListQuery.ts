/** @module Reads the listPets query string into the shape the ListQuery schema checks. */
import { AnimalStoreError } from '../AnimalStoreError.js';

/**
 * Collects query parameters, refusing one given twice (which of two limits would we obey?),
 * and turns a digit-only `limit` into a number. Anything else stays a string, so `1e2`,
 * `1.5`, `-1` or an empty `limit` fails the schema's integer check instead of being coerced.
 */
export const readListQuery = (searchParams: URLSearchParams): Record<string, unknown> => {
  const query: Record<string, unknown> = {};
  for (const [name, value] of searchParams) {
    if (Object.hasOwn(query, name)) {
      const path = name.length > 32 ? `${name.slice(0, 32)}…` : name;
      throw new AnimalStoreError('validation_failed', `The query parameter ${path} is given more than once; give it once.`, {
        details: [{ path, message: 'must be given at most once' }],
      });
    }
    query[name] = name === 'limit' && /^[0-9]+$/.test(value) ? Number(value) : value;
  }
  return query;
};
