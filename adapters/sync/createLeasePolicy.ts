/** @module How many leased ids a kiosk keeps ahead: enough for its recent rate of creates, within the hub's bound. */

/** Fewer ids left than this, a kiosk asks for another block, however slowly it creates: half a block. */
export const LEASE_LOW_WATER = 500;

/**
 * How many seconds of local creates, at the kiosk's recent rate, its ids should last while
 * a round runs: a round under a flood takes tens of milliseconds, a slow hub's more.
 */
const LEASE_AHEAD_SECONDS = 1;

/**
 * The most ids a kiosk asks to hold, in blocks: the block in use and two fresh ones at most
 * are blocks nothing was pushed from, under the hub's bound of 4 (`MAX_UNUSED_LEASES`), so
 * a kiosk never meets that bound by itself.
 */
const MAX_BLOCKS_AHEAD = 2;

/** The shortest span the rate is measured over: shorter ones say more about the event loop than about the kiosk. */
const RATE_SPAN_MILLISECONDS = 250;

/** Decides, at each lease check of a replicator, whether the kiosk should lease another block. */
export interface LeasePolicy {
  /** Whether a kiosk with `left` ids, whose last block held `blockSize`, should lease one more now. */
  shouldLease(left: number, blockSize: number): boolean;
  /** Told of each block leased, so its ids are not taken for a drop in the rate. */
  leased(blockSize: number): void;
}

/**
 * A policy that keeps at least `LEASE_LOW_WATER` ids, and as many as the kiosk gave in the
 * last `LEASE_AHEAD_SECONDS` at its recent rate, up to `MAX_BLOCKS_AHEAD` blocks: a kiosk
 * creating one animal a second holds half a block to a block and a half, one under a flood
 * two blocks and more, so it does not run out of ids between two rounds.
 */
export const createLeasePolicy = (now: () => number): LeasePolicy => {
  /** The ids left at the start of the span the rate is measured over, plus those leased since. */
  let since: { at: number; left: number } | undefined;
  let perSecond = 0;
  return {
    shouldLease(left, blockSize) {
      const at = now();
      // A wall clock set back starts the span again rather than freeze the rate.
      if (since === undefined || at < since.at) since = { at, left };
      else if (at - since.at >= RATE_SPAN_MILLISECONDS) {
        perSecond = (Math.max(0, since.left - left) * 1000) / (at - since.at);
        since = { at, left };
      }
      const wanted = Math.max(LEASE_LOW_WATER, Math.min(perSecond * LEASE_AHEAD_SECONDS, MAX_BLOCKS_AHEAD * blockSize));
      return left < wanted;
    },
    leased(blockSize) {
      if (since !== undefined) since.left += blockSize;
    },
  };
};
