/** @module What a hub has seen of each sync key since it started: the fleet view's memory. */
import type { Caller } from '../auth/createBearerCheck.js';

/** One sync key's exchanges with this hub since it started. */
export interface KioskActivity {
  /** When it last leased ids, pushed and pulled (ms since the epoch); `undefined` before the first. */
  lastLease: number | undefined;
  lastPush: number | undefined;
  lastPull: number | undefined;
  /** Animals it pushed that were new here. */
  pushed: number;
  /** The checkpoint its last pull answered with. */
  checkpoint: number | undefined;
}

/** Records each sync key's exchanges, by key fingerprint. */
export interface Fleet {
  leased(caller: Caller, time: number): void;
  pushed(caller: Caller, time: number, stored: number): void;
  pulled(caller: Caller, time: number, checkpoint: number): void;
  /** What `fingerprint`'s key did since this hub started; `undefined` when nothing. */
  activityOf(fingerprint: string): KioskActivity | undefined;
}

/**
 * Creates the fleet's memory. It lives in the hub's process (reset when it restarts) and
 * holds one small record per sync key that ever called, so it stays bounded by the keys
 * configured over the hub's life. What outlives a restart (the blocks leased to each key)
 * comes from the storage instead.
 */
export const createFleet = (): Fleet => {
  const kiosks = new Map<string, KioskActivity>();
  const of = (caller: Caller): KioskActivity => {
    let activity = kiosks.get(caller.keyFingerprint);
    if (activity === undefined) {
      activity = { lastLease: undefined, lastPush: undefined, lastPull: undefined, pushed: 0, checkpoint: undefined };
      kiosks.set(caller.keyFingerprint, activity);
    }
    return activity;
  };
  return {
    leased(caller, time) {
      of(caller).lastLease = time;
    },
    pushed(caller, time, stored) {
      const activity = of(caller);
      activity.lastPush = time;
      activity.pushed += stored;
    },
    pulled(caller, time, checkpoint) {
      const activity = of(caller);
      activity.lastPull = time;
      activity.checkpoint = checkpoint;
    },
    activityOf: (fingerprint) => kiosks.get(fingerprint),
  };
};
