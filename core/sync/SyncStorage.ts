/** @module The storage port's sync capability: what a hub and a kiosk need their storage to keep durably. */
import type { Pet } from '../schemas/Pet.js';

/** A block of ids leased by a hub to one sync key: `first` to `last`, both included. */
export interface IdBlock {
  first: number;
  last: number;
}

/**
 * What a kiosk keeps about its hub, in the same durable place as its animals, so that every
 * step of sync resumes after a crash at any point.
 */
export interface KioskState {
  /** The hub this catalogue joined (its URL as given), so a file never silently joins another. */
  hub: string;
  /**
   * The blocks of ids the hub leased to this kiosk that it still needs, ascending: each with
   * an id not given yet or an animal not pushed yet, and always the last one leased. Spent
   * blocks are dropped when a push is recorded or a block added, so the list stays short
   * for a kiosk's life.
   */
  blocks: IdBlock[];
  /** The next id a local create gets, inside one of `blocks`; 0 while no leased id is left. */
  nextId: number;
  /**
   * The id of the last animal, in this catalogue's arrival order, that push has dealt with
   * (sent and acknowledged by the hub, or skipped as not made here); 0 before any.
   */
  pushedThrough: number;
  /** The hub's pull checkpoint to continue from, as the hub gave it; 0 before the first pull. */
  checkpoint: number;
}

/** The blocks leased to one sync key. */
export interface LeaseCount {
  /** Every block leased to the key. */
  blocks: number;
  /** The blocks from which nothing was pushed yet. */
  unused: number;
}

/** How many leased blocks from which nothing was pushed one sync key may hold; past it a lease is refused (429). */
export const MAX_UNUSED_LEASES = 4;

/** What `store` did with a batch from a kiosk. */
export interface StoreResult {
  /** How many animals were new here and are now stored durably. */
  stored: number;
  /** How many were stored already with the same fields (a push repeated after a lost answer). */
  present: number;
}

/**
 * The optional sync capability of a storage (`PetStorage.sync`). The hub side (`lease`,
 * `store`) lets any server be a hub; the kiosk side keeps a kiosk's ids and progress. The
 * hub's pull feed is `PetStorage.list` in arrival order with `after` the checkpoint, so it
 * needs nothing here.
 *
 * Rules every implementation keeps:
 * - Each method resolves only once its change is durable, and a failed one changes nothing
 *   (it rejects with an `AnimalStoreError`, `storage_unavailable` for a storage failure).
 * - Ids are never given twice: a leased block lies above every id the storage has given or
 *   leased before, and local creates (hub or kiosk) never take a leased id of someone else.
 * - Animals stored by `store` or `insertPulled` keep their ids and arrive at the end of the
 *   arrival order, so pagers and pull checkpoints never miss them.
 * - No storage ever holds two animals with one id: a kiosk refuses `lease` and `store`
 *   (`sync_conflict`, 409), `addBlock` refuses a block holding ids held or starting at or
 *   below the last id of a block leased before (a hub leases ascending),
 *   and any write that would still add an id held is refused before anything is written.
 */
export interface SyncStorage {
  /**
   * Hub: leases the next `size` ids to the sync key fingerprinted `scope`, durably (the
   * lease and the moved id counter in one write). A lost answer only wastes the block.
   */
  lease(scope: string, size: number): Promise<IdBlock>;
  /**
   * Hub: stores animals pushed by `scope`, each keeping its id, in the order given, in one
   * durable write. An animal stored already with the same fields is skipped (a repeated
   * push). The whole batch is refused, nothing stored, with an `AnimalStoreError` when any
   * id lies in no block leased to `scope` (`forbidden`, 403) or is stored already with other
   * fields (`sync_conflict`, 409).
   */
  store(scope: string, pets: readonly Pet[]): Promise<StoreResult>;
  /**
   * Hub: calls `listener` soon after animals arrive (become visible), whoever made them: a
   * create, a push, pulled animals, and on a storage shared by several instances another
   * instance's commits. Returns the function that stops it. Waiting pulls (`wait`) listen
   * here; a storage without it answers them at once.
   */
  onArrival?(listener: () => void): () => void;
  /**
   * Hub: the leases of `scope` and how many of them hold no animal yet (nothing was pushed
   * from them, nor made in them): the fleet view's blocks held. Optional for storages
   * made before it.
   */
  leasesOf?(scope: string): Promise<LeaseCount>;

  /** Kiosk: its state, or `undefined` while this catalogue has not joined a hub. */
  kiosk(): Promise<KioskState | undefined>;
  /**
   * Kiosk: makes this catalogue a kiosk of `hub`, durably; from then on local creates take
   * their ids from leased blocks, and fail with `storage_unavailable` (503) while none is
   * left. Joining the hub it joined before (however its URL is written: compared as WHATWG URLs) only
   * answers its state; a kiosk that never leased a block nor holds an animal may join another
   * hub instead. Throws a `SyncJoinError` when it holds animals made without sync, leased ids
   * as a hub, or leased ids from (or holds animals of) another hub.
   */
  join(hub: string): Promise<KioskState>;
  /** Kiosk: keeps a block the hub leased to it, dropping the blocks that spent; resolves once durable. */
  addBlock(block: IdBlock): Promise<void>;
  /**
   * Kiosk: up to `limit` animals made here (ids in its blocks) after `pushedThrough`, in
   * arrival order, and `through`: the id of the last animal the scan passed (to hand to
   * `markPushed` once the hub stored them; equal to `pushedThrough` when nothing follows).
   */
  unpushed(limit: number): Promise<{ pets: Pet[]; through: number }>;
  /** Kiosk: how many animals made here wait to be pushed. */
  waiting(): Promise<number>;
  /**
   * Kiosk: records, durably, that push dealt with everything through the animal `through`,
   * and drops the blocks that spent in the same write (see `KioskState.blocks`).
   */
  markPushed(through: number): Promise<void>;
  /**
   * Kiosk: inserts the pulled animals it does not hold yet (by id: its own come back and are
   * skipped) and keeps `checkpoint`, in one durable write. Resolves with how many were new.
   */
  insertPulled(pets: readonly Pet[], checkpoint: number): Promise<number>;
}

/** A catalogue cannot join a hub as it is: it holds animals made without sync, or belongs to another hub. */
export class SyncJoinError extends Error {
  override readonly name = 'SyncJoinError';
}
