/** @module One writer per IndexedDB catalogue, across a site's workers and tabs: an exclusive Web Lock held while it is open. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';

/** How long an opener waits for the one before it to close (a worker being replaced finishes its requests first). */
const WAIT_MILLISECONDS = 10_000;

/**
 * Takes the exclusive Web Lock named after the database, waiting while another worker or tab
 * holds it; resolves with the function that releases it. Where there are no Web Locks (Node
 * before 24), there is nothing to share the database with, and nothing is taken.
 * Rejects with `storage_unavailable` when the lock stays taken: two writers could give one
 * id to two animals, as each keeps the catalogue in memory.
 */
export const holdDatabaseLock = async (name: string): Promise<() => void> => {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  if (locks === undefined) return () => {};
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await new Promise<void>((resolve, reject) => {
    locks
      .request(`animal-store:indexeddb:${name}`, { mode: 'exclusive', signal: AbortSignal.timeout(WAIT_MILLISECONDS) }, () => {
        resolve();
        return held;
      })
      .catch((error: unknown) =>
        reject(
          new AnimalStoreError(
            'storage_unavailable',
            `The catalogue ${name} in this browser is open in another worker or tab, which did not close it within ${WAIT_MILLISECONDS / 1000} s; nothing was stored. Close the other tab, or reload.`,
            { cause: error },
          ),
        ),
      );
  });
  return release;
};
