/** @module The JSON-file storage's sync capability: each change one durable write of the data file. */
import type { Arrivals } from '../../core/sync/createArrivals.js';
import type { SyncStorage } from '../../core/sync/SyncStorage.js';
import type { PetIndex } from '../PetIndex.js';
import { LeaseUse } from '../sync/LeaseUse.js';
import {
  addKioskBlock,
  addLease,
  checkPush,
  copySyncState,
  countUnpushed,
  findUnpushed,
  joinedKiosk,
  markKioskPushed,
  takePulled,
} from '../sync/syncState.js';
import type { PetFile } from './PetFile.js';

/**
 * Sync over a data file. Every change goes through `PetFile.update`, so leases, pushed and
 * pulled animals and the kiosk's progress reach the disk in the same write as anything they
 * depend on, and the index learns new animals only once they are durable. `index()` is
 * the storage's index as it is now (an edit read from disk replaces it).
 */
export const createJsonFileSync = (petFile: PetFile, index: () => PetIndex, name: string, arrivals: Arrivals): SyncStorage => {
  const leaseUse = new LeaseUse();
  return {
    onArrival: (listener) => arrivals.subscribe(listener),
    async leasesOf(scope) {
      await petFile.refresh();
      return leaseUse.count(petFile.sync?.leases ?? [], index(), scope);
    },
    async lease(scope, size) {
      await petFile.refresh();
      return petFile.update((data) => {
        const block = addLease(data.sync, leaseUse, index(), data.nextId, scope, size);
        data.nextId = block.last + 1;
        return block;
      });
    },
    async store(scope, pushed) {
      await petFile.refresh();
      return petFile.update((data) => {
        const fresh = checkPush(data.sync, scope, index(), pushed);
        for (const pet of fresh) data.pets.push(pet);
        return { stored: fresh.length, present: pushed.length - fresh.length };
      });
    },
    async kiosk() {
      const kiosk = petFile.sync?.kiosk;
      return kiosk && copySyncState({ leases: [], kiosk }).kiosk;
    },
    async join(hub) {
      const where = `The data file ${name}`;
      const current = petFile.sync?.kiosk;
      const kiosk = joinedKiosk(current, hub, petFile.pets.length, where, petFile.sync?.leases.length);
      if (kiosk !== current) {
        await petFile.update((data) => {
          data.sync.kiosk = joinedKiosk(data.sync.kiosk, hub, data.pets.length, where, data.sync.leases.length);
        });
      }
      return copySyncState({ leases: [], kiosk }).kiosk!;
    },
    async addBlock(block) {
      await petFile.update((data) => {
        if (data.sync.kiosk) addKioskBlock(data.sync.kiosk, block, index());
      });
    },
    async unpushed(limit) {
      return findUnpushed(petFile.sync?.kiosk, index(), limit);
    },
    async waiting() {
      return countUnpushed(petFile.sync?.kiosk, index());
    },
    async markPushed(through) {
      await petFile.update((data) => {
        markKioskPushed(data.sync.kiosk, index(), through);
      });
    },
    async insertPulled(pulled, checkpoint) {
      return petFile.update((data) => {
        const fresh = takePulled(data.sync.kiosk, index(), pulled, checkpoint);
        for (const pet of fresh) data.pets.push(pet);
        data.nextId = Math.max(data.nextId, ...fresh.map(({ id }) => id + 1));
        return fresh.length;
      });
    },
  };
};
