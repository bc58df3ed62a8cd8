/** @module What a journal line carries of the sync part: nothing, the leases added, or the whole part. */
import type { Lease } from '../../sync/Lease.js';
import type { SyncState } from '../../sync/syncState.js';

/** The sync part in effect after a line, as far as the next line needs to know it. */
interface Written {
  /** The kiosk part's JSON (small: its blocks are the few it still needs). */
  kiosk: string | undefined;
  /** How many leases there were, and the last of them. */
  leases: number;
  lastLease: Lease | undefined;
}

/** A line's sync fields: `sync` replaces the part on replay, `leased` adds leases to it. */
export interface SyncOfLine {
  sync?: SyncState | undefined;
  leased?: readonly Lease[] | undefined;
}

const sameLease = (one: Lease | undefined, other: Lease | undefined): boolean =>
  one === other ||
  (one !== undefined && other !== undefined && one.scope === other.scope && one.first === other.first && one.last === other.last);

/**
 * Decides what of the sync part each journal line carries, from what the last line this
 * process wrote left in effect. A hub's lease list grows by a block every 1,000 ids leased
 * and is never cut (a kiosk may push from an old block at any time), so writing it whole
 * with each line made every write cost more the older the hub: a create or a push now
 * leaves it out, and a lease adds only its own block (`leased`). Leases are only ever
 * added, so comparing the count and the last lease finds every change; anything else (the
 * kiosk part moved, or the state is not known: after opening, a reload, a whole write, a
 * failed write) writes the whole part.
 */
export class SyncInJournal {
  #written: Written | undefined;

  /**
   * The fields the next line carries for `sync` as it is now, taken as written: a line that
   * fails to append must be followed by `forget`.
   */
  lineOf(sync: SyncState | undefined): SyncOfLine {
    const before = this.#written;
    if (sync === undefined) {
      this.#written = undefined;
      return {};
    }
    const { leases } = sync;
    const after: Written = {
      kiosk: sync.kiosk === undefined ? undefined : JSON.stringify(sync.kiosk),
      leases: leases.length,
      lastLease: leases.at(-1),
    };
    this.#written = after;
    const added =
      before !== undefined &&
      before.kiosk === after.kiosk &&
      leases.length >= before.leases &&
      sameLease(before.leases === 0 ? undefined : leases[before.leases - 1], before.lastLease);
    if (!added) return { sync };
    return leases.length > before.leases ? { leased: leases.slice(before.leases) } : {};
  }

  /** The part in effect is not known for sure any more: the next line writes it whole. */
  forget(): void {
    this.#written = undefined;
  }
}
