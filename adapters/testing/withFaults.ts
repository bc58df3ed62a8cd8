/** @module Wraps a storage so tests can slow down or fail chosen catalogue operations. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { PetStorage } from '../../core/PetStorage.js';
import type { ErrorCode } from '../../core/schemas/ErrorBody.js';
import { sleep } from '../../core/sleep.js';

/** A catalogue operation, named as in the interface. */
export type CatalogueOperation = 'listPets' | 'createPet' | 'getPet';

/** A fault to inject into one operation. */
export interface Fault {
  /** Which operation: `listPets`, `createPet` or `getPet`. */
  operation: CatalogueOperation;
  /** Milliseconds to wait before the operation runs (or fails). */
  latency?: number;
  /** Fail with this error code instead of running; the HTTP status follows from the code. */
  error?: ErrorCode;
  /** The error's message; a default names the fault. */
  message?: string;
  /** How many calls the fault affects; every call, until cleared, when left out. */
  times?: number;
  /**
   * For a 503 or 429 fault, the seconds its Retry-After asks a client to wait; 0 by default,
   * so clients that retry (the typed client does) try again at once and tests stay fast.
   */
  retryAfterSeconds?: number;
}

/** A storage with faults that can be injected and cleared. */
export interface FaultyStorage extends PetStorage {
  /** Adds a fault; it acts on calls from now on. */
  inject(fault: Fault): void;
  /** Removes every fault. */
  clearFaults(): void;
}

/** Marks errors made by an injected fault, so loggers can tell them from real failures. */
const INJECTED = Symbol('animal-store/testing injected fault');

/** Tells whether an error was made by an injected fault. */
export const isInjectedFault = (error: unknown): boolean =>
  error instanceof AnimalStoreError && (error.cause as { [INJECTED]?: true } | undefined)?.[INJECTED] === true;

/**
 * Wraps a storage. A fault acts where the catalogue meets its storage, so a request refused
 * before that (no key, an invalid body) is neither delayed nor failed, as with a real
 * slow or failing database. `listPets` faults act on `list`, `createPet` on `create` and
 * `createIdempotent` (a failed create stores nothing), `getPet` on `get`.
 */
export const withFaults = (storage: PetStorage): FaultyStorage => {
  let faults: Array<Fault & { remaining: number }> = [];

  const apply = async (operation: CatalogueOperation): Promise<void> => {
    for (const fault of faults.filter((candidate) => candidate.operation === operation)) {
      if (--fault.remaining <= 0) faults = faults.filter((other) => other !== fault);
      if (fault.latency) await sleep(fault.latency);
      if (fault.error) {
        throw new AnimalStoreError(fault.error, fault.message ?? `${operation} failed with ${fault.error}, as injected by the test.`, {
          cause: { [INJECTED]: true },
          headers: { 'retry-after': String(fault.retryAfterSeconds ?? 0) },
        });
      }
    }
  };

  return {
    async create(pet) {
      await apply('createPet');
      return storage.create(pet);
    },
    async createIdempotent(pet, key) {
      await apply('createPet');
      return storage.createIdempotent(pet, key);
    },
    async get(id) {
      await apply('getPet');
      return storage.get(id);
    },
    async list(page) {
      await apply('listPets');
      return storage.list(page);
    },
    close: () => storage.close(),
    ...(storage.sync === undefined ? {} : { sync: storage.sync }),
    inject(fault) {
      if (fault.times !== undefined && !(Number.isInteger(fault.times) && fault.times >= 1)) {
        throw new RangeError(`A fault's times must be a whole number of 1 or more, not ${fault.times}.`);
      }
      if (fault.retryAfterSeconds !== undefined && !(Number.isInteger(fault.retryAfterSeconds) && fault.retryAfterSeconds >= 0)) {
        throw new RangeError(`A fault's retryAfterSeconds must be a whole number of 0 or more, not ${fault.retryAfterSeconds}.`);
      }
      if (fault.latency !== undefined && !(fault.latency >= 0)) {
        throw new RangeError(`A fault's latency must be 0 or more milliseconds, not ${fault.latency}.`);
      }
      faults.push({ ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
    },
    clearFaults() {
      faults = [];
    },
  };
};
