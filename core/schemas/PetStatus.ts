/** @module The availability status of an animal. */
import * as v from 'valibot';

/** The three availability statuses, in the order the interface lists them. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

/** Validates an availability status: exactly `available`, `pending` or `sold`. */
export const PetStatus = v.picklist(PET_STATUSES, 'must be one of "available", "pending" or "sold"');

/** An availability status. */
export type PetStatus = v.InferOutput<typeof PetStatus>;
