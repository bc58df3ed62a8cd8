/** @module The keys a service accepts, replaceable while it runs. */
import type { Sha256 } from '../digest.js';
import type { ApiKey } from './apiKeys.js';
import { type BearerCheck, type Caller, indexBearerCheck, type KnownKeys, knownCallers, withdrawReplaced } from './createBearerCheck.js';

/** The keys a service accepts now; `replace` swaps them without a restart. */
export interface KeyRing {
  /** Checks an Authorization header against the keys in force. */
  check: BearerCheck;
  /**
   * Puts `keys` in force: a removed key is refused from the next request on and its waiting
   * pulls end; requests in flight finish. Throws a TypeError, and keeps the keys in force,
   * when `keys` cannot be used (none, too short, unknown scope, bad name).
   */
  replace(keys: readonly (string | ApiKey)[]): Promise<void>;
  /** The callers of the keys in force, in their configured order. */
  callers(): Promise<Caller[]>;
}

/** Makes a key ring holding `keys` (see `createBearerCheck`); throws a TypeError for keys that cannot be used. */
export const createKeyRing = (keys: readonly (string | ApiKey)[], sha256: Sha256, minimumKeyLength?: number): KeyRing => {
  let current = indexBearerCheck(keys, sha256, minimumKeyLength);
  // Replacements one at a time, in the order asked for.
  let replacing: Promise<unknown> = Promise.resolve();
  return {
    check: (authorization) => current.check(authorization),
    replace(next) {
      const done = replacing.then(async () => {
        const before: KnownKeys = await current.known;
        const replacement = indexBearerCheck(next, sha256, minimumKeyLength, before);
        const after = await replacement.known;
        current = replacement;
        withdrawReplaced(before, after);
      });
      replacing = done.catch(() => undefined);
      return done;
    },
    callers: async () => knownCallers(await current.known),
  };
};
