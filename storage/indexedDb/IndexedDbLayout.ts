/** @module How an IndexedDB catalogue is laid out: its object stores and the version that made them. */

/** The schema version: raised, with an upgrade step, whenever the stores change. */
export const LAYOUT_VERSION = 1;

/** The animals, in arrival order: out-of-line, auto-incremented keys give the order. */
export const PETS = 'pets';
/** The live Idempotency-Keys, in arrival order (which is expiry order). */
export const KEYS = 'idempotencyKeys';
/** One record per name: `sync` (the SyncState) and `nextId`. */
export const META = 'meta';

/** Every store, for transactions that may touch any of them. */
export const ALL_STORES = [PETS, KEYS, META];

/** Creates the stores on a new database. */
export const createLayout = (db: IDBDatabase): void => {
  if (!db.objectStoreNames.contains(PETS)) db.createObjectStore(PETS, { autoIncrement: true });
  if (!db.objectStoreNames.contains(KEYS)) db.createObjectStore(KEYS, { autoIncrement: true });
  if (!db.objectStoreNames.contains(META)) db.createObjectStore(META);
};
