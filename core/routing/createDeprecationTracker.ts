/** @module Counts calls of the deprecated operation per API key, and tells the operator once per key. */
import type { Caller } from '../auth/createBearerCheck.js';

/** How often one key has called the deprecated getPet. */
export interface DeprecatedUse {
  keyIndex: number;
  keyFingerprint: string;
  calls: number;
}

/** Records deprecated calls. */
export interface DeprecationTracker {
  /** Counts a call by `caller`; the first call of each key is reported through `warn`. */
  record(caller: Caller, base: string): void;
  /** The calls so far, one entry per key that made any; copies, safe to keep. */
  uses(): DeprecatedUse[];
}

/**
 * Creates a tracker. Keys are named by their position and fingerprint, never by
 * themselves, so the warning is safe to write to any log.
 */
export const createDeprecationTracker = (warn: (message: string) => void): DeprecationTracker => {
  const uses = new Map<number, DeprecatedUse>();
  return {
    record(caller, base) {
      const use = uses.get(caller.keyIndex);
      if (use) {
        use.calls++;
        return;
      }
      uses.set(caller.keyIndex, { keyIndex: caller.keyIndex, keyFingerprint: caller.keyFingerprint, calls: 1 });
      warn(
        `deprecated GET ${base}/pets/{petId} called with API key #${caller.keyIndex + 1} (sha256 ${caller.keyFingerprint}…); ` +
          `it will be removed on 5 December 2030; use GET ${base}/pets?status=… instead`,
      );
    },
    uses: () => [...uses.values()].map((use) => ({ ...use })),
  };
};
