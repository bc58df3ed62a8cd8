/** @module A block of ids a hub leased: what a hub's sync part lists, and what the leases' use is counted over. */
import type { IdBlock } from '../../core/sync/SyncStorage.js';

/** A block of ids a hub leased to one sync key. */
export interface Lease extends IdBlock {
  /** The fingerprint of the sync key it was leased to. */
  scope: string;
}
