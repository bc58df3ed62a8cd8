/** @module An animal from a row of `pets`, frozen so callers can share it. */
import type { Pet } from '../../core/schemas/Pet.js';
import type { PetStatus } from '../../core/schemas/PetStatus.js';

/**
 * The animal of a row with `id, name, category_id, status`. pg reads bigint columns as
 * strings (they may exceed 2^53); the table's checks keep ids and categories within it, so
 * `Number` is exact.
 */
export const toPet = (row: Record<string, unknown>): Pet =>
  Object.freeze({
    id: Number(row.id),
    name: row.name as string,
    categoryId: Number(row.category_id),
    status: row.status as PetStatus,
  });
