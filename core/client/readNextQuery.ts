/** @module Reads the next page's query from the service's `Link rel="next"`, as the service reads a query. */
import * as v from 'valibot';
import type { NextPageQuery } from '../catalogue/Catalogue.js';
import { readListQuery } from '../catalogue/readListQuery.js';
import { ListQuery } from '../schemas/ListQuery.js';
import { AnimalStoreClientError } from './AnimalStoreClientError.js';

/**
 * The query of the page a next link points to: read by `readListQuery` and checked by the
 * `ListQuery` schema, so the client fills in no default of its own. A link without a cursor
 * leads to no further page (`undefined`); one the schema refuses is an `invalid_response`.
 *
 * @param next The next link's URL.
 * @param status The status of the answer that carried the link, for the error.
 */
export const readNextQuery = (next: URL, status: number): NextPageQuery | undefined => {
  let parsed: v.SafeParseResult<typeof ListQuery> | undefined;
  try {
    parsed = v.safeParse(ListQuery, readListQuery(next.searchParams));
  } catch {
    // readListQuery refuses a parameter given twice: that, too, is not a query the service wrote.
  }
  if (!parsed?.success) {
    throw new AnimalStoreClientError({ code: 'invalid_response', status, message: 'The next-page link does not hold a listPets query.' });
  }
  const { limit, status: petStatus, cursor } = parsed.output;
  if (cursor === undefined) return undefined;
  return petStatus === undefined ? { limit, cursor } : { limit, status: petStatus, cursor };
};
