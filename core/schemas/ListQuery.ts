/** @module The query of listPets. */
import * as v from 'valibot';
import { PetStatus } from './PetStatus.js';

/** The page size bounds and default of the interface. */
export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;

const LIMIT_MESSAGE = `must be a whole number from ${LIMIT_MIN} to ${LIMIT_MAX} written in decimal digits`;

/**
 * Validates the listPets query after `readListQuery` has turned digit-only strings into
 * numbers, so the schema (and the OpenAPI document drawn from it) speaks of integers.
 */
export const ListQuery = v.strictObject({
  limit: v.optional(
    v.pipe(v.number(LIMIT_MESSAGE), v.integer(LIMIT_MESSAGE), v.minValue(LIMIT_MIN, LIMIT_MESSAGE), v.maxValue(LIMIT_MAX, LIMIT_MESSAGE)),
    LIMIT_DEFAULT,
  ),
  status: v.optional(PetStatus),
  cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
});

/** A listPets query as a caller writes it. */
export type ListQueryInput = v.InferInput<typeof ListQuery>;

/** A validated listPets query, `limit` filled in. */
export type ListQuery = v.InferOutput<typeof ListQuery>;
