/** @module The data file's `sync` part: a hub's leases and a kiosk's progress, kept in the same durable write as the animals. */
import * as v from 'valibot';
import { PetId } from '../../../core/schemas/Pet.js';
import type { Lease } from '../../sync/Lease.js';
import type { SyncState } from '../../sync/syncState.js';
import type { PetFileProblem } from './PetFileData.js';

const IdOrNone = v.union([v.literal(0), PetId], 'must be an id, or 0 for none');
const Block = { first: PetId, last: PetId };

/** A hub's leases: in the `sync` part, and in a journal line's `leased`. */
const Leases = v.array(
  v.strictObject({ scope: v.pipe(v.string(), v.regex(/^[0-9a-f]{1,64}$/, 'must be the hex fingerprint of an API key')), ...Block }),
  'must be an array of leases',
);

/**
 * The `sync` field of a format-2 data file, present once the catalogue leased ids to a kiosk
 * (a hub) or joined a hub (a kiosk). Its presence also means the animals are in arrival
 * order: ids are distinct but need not ascend.
 */
export const SyncStateInFile = v.strictObject({
  leases: Leases,
  kiosk: v.optional(
    v.strictObject({
      hub: v.pipe(v.string(), v.minLength(1, 'must name the hub')),
      blocks: v.array(v.strictObject(Block), 'must be an array of blocks of ids'),
      nextId: IdOrNone,
      pushedThrough: IdOrNone,
      checkpoint: IdOrNone,
    }),
  ),
});

/** A failed parse's first issue as a problem of the field `field`: its path below it, and what is wrong. */
const firstProblem = (field: string, issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): PetFileProblem => {
  const issue = issues[0];
  const path = [field, ...(issue.path ?? []).map((item) => String(item.key))].join('.');
  return { path, message: issue.expected === 'never' ? 'is not a known field' : issue.message };
};

/** The sync part as read from a file, or its first problem. */
export const readSyncState = (value: unknown): { sync: SyncState } | { problem: PetFileProblem } => {
  const result = v.safeParse(SyncStateInFile, value, { abortEarly: true });
  return result.success ? { sync: result.output } : { problem: firstProblem('sync', result.issues) };
};

/** The leases a journal line adds (its `leased` field), or the first problem with them. */
export const readLeased = (value: unknown): { leases: Lease[] } | { problem: PetFileProblem } => {
  const result = v.safeParse(Leases, value, { abortEarly: true });
  return result.success ? { leases: result.output } : { problem: firstProblem('leased', result.issues) };
};

/** What is wrong with the id at `position` of a file in arrival order (`seen` holds the ids before it), or `undefined`. */
export const arrivalIdProblem = (
  pets: readonly { readonly id: number }[],
  position: number,
  seen: Set<number>,
): PetFileProblem | undefined => {
  const id = pets[position]!.id;
  if (seen.has(id)) return { path: `pets[${position}].id`, message: `repeats the id ${id} of an animal before it` };
  seen.add(id);
  return undefined;
};
