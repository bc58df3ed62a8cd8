/** @module Which leased blocks hold an animal yet: found by reading each animal once, as it arrives. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { type LeaseCount, MAX_UNUSED_LEASES } from '../../core/sync/SyncStorage.js';
import type { PetIndex } from '../PetIndex.js';
import type { Lease } from './Lease.js';

/** Seconds a kiosk refused a lease is told to wait: a block is used once it pushes, not by waiting. */
const RETRY_AFTER_SECONDS = 60;

/** The 429 of a key that holds `unused` leased blocks from which nothing was pushed: nothing is leased. */
export const tooManyUnusedLeases = (unused: number): AnimalStoreError =>
  new AnimalStoreError(
    'rate_limited',
    `This sync key holds ${unused} leased blocks of ids from which nothing was pushed (at most ${MAX_UNUSED_LEASES}); push the animals made from them before leasing more. Nothing was leased.`,
    { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
  );

/**
 * Keeps which leases hold an animal (a block from which something was pushed, or made in
 * it), for the memory and JSON-file storages. Animals never leave a catalogue, so a lease
 * once used stays used: each call reads only the animals that arrived since the last, and
 * starts over when the index is replaced (a reset, a file edited by hand).
 */
export class LeaseUse {
  #index: PetIndex | undefined;
  #read = 0;
  /** The `first` of every lease known to hold an animal. */
  readonly #used = new Set<number>();
  #sorted: Lease[] = [];

  /** The blocks leased to `scope`, and how many of them hold no animal yet. */
  count(leases: readonly Lease[], index: PetIndex, scope: string): LeaseCount {
    this.#catchUp(leases, index);
    const own = leases.filter((lease) => lease.scope === scope);
    return { blocks: own.length, unused: own.filter((lease) => !this.#used.has(lease.first)).length };
  }

  /** Throws the 429 of a key that holds `MAX_UNUSED_LEASES` unused blocks; nothing is leased then. */
  refuseBeyondBound(leases: readonly Lease[], index: PetIndex, scope: string): void {
    const { unused } = this.count(leases, index, scope);
    if (unused >= MAX_UNUSED_LEASES) throw tooManyUnusedLeases(unused);
  }

  #catchUp(leases: readonly Lease[], index: PetIndex): void {
    if (index !== this.#index) {
      this.#index = index;
      this.#read = 0;
      this.#used.clear();
      this.#sorted = [];
    }
    if (this.#sorted.length !== leases.length || leases.length === 0)
      this.#sorted = [...leases].sort((one, other) => one.first - other.first);
    const sorted = this.#sorted;
    for (; this.#read < index.size; this.#read++) {
      const id = index.idAt(this.#read);
      // The last lease starting at or below the id (leases never overlap).
      let low = 0;
      let high = sorted.length - 1;
      let found = -1;
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (sorted[middle]!.first <= id) {
          found = middle;
          low = middle + 1;
        } else high = middle - 1;
      }
      if (found !== -1 && id <= sorted[found]!.last) this.#used.add(sorted[found]!.first);
    }
  }
}
