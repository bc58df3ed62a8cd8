/** @module The bodies and queries of the sync endpoints, and the OpenAPI document's source for them. */
import * as v from 'valibot';
import { Pet, PetId } from './Pet.js';

/** The most animals one push may carry. */
export const PUSH_MAX = 1000;
/** The most animals one pull may ask for, and how many it gets when it does not say. */
export const PULL_LIMIT_MAX = 5000;
export const PULL_LIMIT_DEFAULT = 1000;

const PULL_LIMIT_MESSAGE = `must be a whole number from 1 to ${PULL_LIMIT_MAX} written in decimal digits`;

/** The longest a pull may wait for an animal to arrive, in seconds. */
export const PULL_WAIT_MAX = 60;
const WAIT_MESSAGE = `must be a whole number of seconds from 0 to ${PULL_WAIT_MAX} written in decimal digits`;

/** POST {base}/sync/leases: no fields (an empty object, or no body at all). */
export const SyncLeaseRequest = v.strictObject({});

/** POST {base}/sync/push: animals made at a kiosk, with the ids the hub leased to it. */
export const SyncPush = v.strictObject({
  pets: v.pipe(
    v.array(Pet, 'must be an array of animals'),
    v.minLength(1, 'must hold at least one animal'),
    v.maxLength(PUSH_MAX, `must hold at most ${PUSH_MAX} animals; push in batches`),
  ),
});

/** A push as validated. */
export type SyncPush = v.InferOutput<typeof SyncPush>;

/** GET {base}/sync/pull's query, after digit-only values became numbers. */
export const SyncPullQuery = v.strictObject({
  checkpoint: v.optional(v.union([v.literal(0), PetId], 'must be a checkpoint a pull answered with (0 for the start)'), 0),
  limit: v.optional(
    v.pipe(
      v.number(PULL_LIMIT_MESSAGE),
      v.integer(PULL_LIMIT_MESSAGE),
      v.minValue(1, PULL_LIMIT_MESSAGE),
      v.maxValue(PULL_LIMIT_MAX, PULL_LIMIT_MESSAGE),
    ),
    PULL_LIMIT_DEFAULT,
  ),
  /** Seconds to wait for an animal when none follows the checkpoint; 0 (answer at once) by default. */
  wait: v.optional(
    v.pipe(v.number(WAIT_MESSAGE), v.integer(WAIT_MESSAGE), v.minValue(0, WAIT_MESSAGE), v.maxValue(PULL_WAIT_MAX, WAIT_MESSAGE)),
    0,
  ),
});

/** A block of ids leased to the calling key: first to last, both included. */
export const SyncLease = v.strictObject({ first: PetId, last: PetId });

/** What a push did: animals new at the hub, and ones it held already (a repeated push). */
export const SyncPushResult = v.strictObject({
  stored: v.pipe(v.number(), v.integer()),
  present: v.pipe(v.number(), v.integer()),
});

/**
 * A pull's answer: animals in the hub's arrival order, and the checkpoint to send next. A
 * caught-up pull answers no animals and the checkpoint it was given.
 */
export const SyncPull = v.strictObject({
  pets: v.array(Pet),
  checkpoint: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

/** A pull's answer. */
export type SyncPull = v.InferOutput<typeof SyncPull>;

/** A kiosk's sync state, as GET {base}/sync/status shows it. */
export const SyncStatus = v.strictObject({
  /** The hub this kiosk syncs with. */
  hub: v.string(),
  /** Whether the last exchange with the hub succeeded. */
  reachable: v.boolean(),
  /** Animals made here that the hub does not have yet. */
  waiting: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** Leased ids left for local creates. */
  idsLeft: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** When the hub last answered a push of this kiosk's animals, ISO 8601; null before the first. */
  lastPush: v.nullable(v.string()),
  /** When the hub last answered a pull, ISO 8601; null before the first. */
  lastPull: v.nullable(v.string()),
  /** Why the last exchange failed, for an operator; null while reachable. */
  problem: v.nullable(v.string()),
});

/** A kiosk's sync state. */
export type SyncStatus = v.InferOutput<typeof SyncStatus>;

/** How far behind a kiosk's checkpoint is counted, at most: past it the fleet view says this many. */
export const BEHIND_COUNTED_MAX = PULL_LIMIT_MAX;

/** One sync key as the fleet view shows it. */
export const SyncKiosk = v.strictObject({
  /** The key's name, or its fingerprint (first 12 hex digits of its SHA-256) when it has none. */
  name: v.string(),
  /** When it last leased ids, pushed, pulled (ISO 8601), since the hub started; null before. */
  lastLease: v.nullable(v.string()),
  lastPush: v.nullable(v.string()),
  lastPull: v.nullable(v.string()),
  /** Animals it pushed that were new here, since the hub started. */
  pushed: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** Blocks of ids leased to it (kept by the storage), and how many hold no animal yet. */
  blocks: v.pipe(v.number(), v.integer(), v.minValue(0)),
  unusedBlocks: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /**
   * Animals that arrived here after the checkpoint of its last pull, counted up to 5,000;
   * null before its first pull since the hub started.
   */
  behind: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

/** One sync key in the fleet view. */
export type SyncKiosk = v.InferOutput<typeof SyncKiosk>;

/** GET {base}/sync/kiosks: every configured key that may sync. */
export const SyncKiosks = v.strictObject({ kiosks: v.array(SyncKiosk) });

/** The fleet view. */
export type SyncKiosks = v.InferOutput<typeof SyncKiosks>;
