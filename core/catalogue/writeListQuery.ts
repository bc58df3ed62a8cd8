/** @module Writes a listPets query as a URL's search parameters: the one writer beside `readListQuery`. */
import type { ListQueryInput } from '../schemas/ListQuery.js';

/**
 * The search parameters of a listPets query, in the order `limit`, `status`, `cursor`, each
 * only when given. The route writes its `Link rel="next"` with it and the client its
 * requests, so both say a query the same way `readListQuery` reads it back.
 */
export const writeListQuery = ({ limit, status, cursor }: ListQueryInput): URLSearchParams => {
  const params = new URLSearchParams();
  if (limit !== undefined) params.set('limit', String(limit));
  if (status !== undefined) params.set('status', status);
  if (cursor !== undefined) params.set('cursor', cursor);
  return params;
};
