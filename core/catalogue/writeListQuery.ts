/** @module Writes a listPets query as a URL's query string: the one writer beside `readListQuery`. */
import type { ListQueryInput } from '../schemas/ListQuery.js';

/**
 * The query string of a listPets query (without `?`), in the order `limit`, `status`,
 * `cursor`, each only when given, its values escaped. The route writes its `Link rel="next"`
 * with it and the client its requests, so both say a query the same way `readListQuery`
 * reads it back. Written as text, not through URLSearchParams: the route writes one for
 * every page it answers.
 */
export const writeListQuery = ({ limit, status, cursor }: ListQueryInput): string => {
  let query = limit === undefined ? '' : `limit=${encodeURIComponent(limit)}`;
  if (status !== undefined) query += `${query === '' ? '' : '&'}status=${encodeURIComponent(status)}`;
  if (cursor !== undefined) query += `${query === '' ? '' : '&'}cursor=${encodeURIComponent(cursor)}`;
  return query;
};
