/** @module GET /healthz: is the service up, and can its storage take writes. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import type { StorageFailureLog } from '../createStorageFailureLog.js';
import type { PetStorage } from '../PetStorage.js';
import type { RouteHandler } from './createRouter.js';

/**
 * Answers 200 while the storage can take writes (or cannot tell), else 503
 * `storage_unavailable` with its reason. A healthy answer tells the failure log that the
 * storage works again.
 */
export const healthRoute =
  (storage: PetStorage, storageFailures: StorageFailureLog): RouteHandler =>
  async ({ respond, headers }) => {
    const state = (await storage.checkHealth?.()) ?? { ok: true };
    if (!state.ok) throw new AnimalStoreError('storage_unavailable', `The storage cannot take writes: ${state.reason}`);
    storageFailures.succeeded();
    return respond.json(200, { status: 'ok' }, { ...headers, 'cache-control': 'no-store' });
  };
