/**
 * @module A catalogue for test apps: seeded, resettable between tests, and able to slow
 * down or fail chosen operations on demand.
 */
import type { Catalogue } from '../../core/catalogue/Catalogue.js';
import { createPetService, type PetService, type PetServiceOptions } from '../../core/createPetService.js';
import type { PetStorage } from '../../core/PetStorage.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { type Seed, toSeedPets } from './toSeedPets.js';
import { type Fault, isInjectedFault, withFaults } from './withFaults.js';

/** How to build a test catalogue; every field is optional. */
export interface TestCatalogueOptions extends Partial<Omit<PetServiceOptions, 'storage'>> {
  /** The animals it starts with (and returns to on `reset()`); validated, see `Seed`. */
  seed?: Seed;
  /** Faults in force from the start (and again after `reset()`). */
  faults?: readonly Fault[];
}

/** A catalogue for tests, with HTTP and in-process access to the same animals. */
export interface TestCatalogue {
  /** The service: a fetch-style handler, to mount with any adapter (`expressMiddleware(service)`). */
  service: PetService;
  /** The in-process catalogue over the same animals. */
  catalogue: Catalogue;
  /**
   * The storage under the service: memory holding the seed, swapped back on `reset()`,
   * wrapped by `withFaults`. To serve the same animals, resets and faults through another
   * service, as `animal-store serve --test-mode` does with `serve()` from animal-store/node.
   */
  storage: PetStorage;
  /** A valid API key: the first of `keys`, `test-key` by default. */
  apiKey: string;
  /** A base URL for `createClient` together with `fetch`: `http://animal-store.test/v1`. */
  baseUrl: string;
  /**
   * A `fetch` that calls the service in-process, no socket: relative URLs are resolved
   * against `baseUrl`'s origin. Pass it to `createClient({ baseUrl, apiKey, fetch })`.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Back to the seed and the faults given at creation; ids start again after the seed. */
  reset(): void;
  /** Slows down or fails an operation from now on, until `clearFaults()` or `reset()`. */
  inject(fault: Fault): void;
  /** Removes every fault, including those given at creation, until `reset()`. */
  clearFaults(): void;
}

const ORIGIN = 'http://animal-store.test';

/**
 * Creates a test catalogue over memory storage. Injected failures are not logged as
 * errors (they are expected); any other failure is, through `logger` or `console`.
 * Warnings (the storage working again once a fault is spent, a deprecated operation's first
 * use) go to `logger.warn` only when one is given: a test's output stays the test's own.
 *
 * @example
 * const pets = createTestCatalogue({ seed: [{ name: 'Rex', categoryId: 1 }] });
 * beforeEach(() => pets.reset());
 * it('shows an error when the catalogue is down', async () => {
 *   pets.inject({ operation: 'listPets', error: 'storage_unavailable' });
 *   // … drive the app under test against pets.service, pets.fetch or expressMiddleware(pets.service)
 * });
 */
export const createTestCatalogue = (options: TestCatalogueOptions = {}): TestCatalogue => {
  const { seed = [], faults: initialFaults = [], keys = ['test-key'], logger = {}, ...rest } = options;
  const seedPets = toSeedPets(seed);
  let memory = createMemoryStorage(seedPets);
  // The service keeps one storage for life; reset swaps what this one delegates to.
  const current: PetStorage = {
    create: (pet) => memory.create(pet),
    createIdempotent: (pet, key) => memory.createIdempotent(pet, key),
    get: (id) => memory.get(id),
    list: (page) => memory.list(page),
    close: () => memory.close(),
    // A test catalogue can be a hub (or a kiosk); reset forgets its leases with its animals.
    sync: {
      lease: (scope, size) => memory.sync.lease(scope, size),
      store: (scope, pets) => memory.sync.store(scope, pets),
      kiosk: () => memory.sync.kiosk(),
      join: (hub) => memory.sync.join(hub),
      addBlock: (block) => memory.sync.addBlock(block),
      unpushed: (limit) => memory.sync.unpushed(limit),
      waiting: () => memory.sync.waiting(),
      markPushed: (through) => memory.sync.markPushed(through),
      insertPulled: (pets, checkpoint) => memory.sync.insertPulled(pets, checkpoint),
    },
  };
  const storage = withFaults(current);
  const service = createPetService({
    // Test keys need not be unguessable: short ones are fine unless asked otherwise.
    minimumKeyLength: 1,
    ...rest,
    keys,
    storage,
    logger: {
      ...logger,
      warn: logger.warn ?? (() => {}),
      error: (message, error) => {
        if (isInjectedFault(error)) return;
        (logger.error ?? console.error)(message, error);
      },
    },
  });
  const injectInitialFaults = () => {
    for (const fault of initialFaults) storage.inject(fault);
  };
  injectInitialFaults();

  return {
    service,
    catalogue: service.catalogue,
    storage,
    apiKey: typeof keys[0] === 'string' ? keys[0] : keys[0]!.key,
    baseUrl: `${ORIGIN}${(rest.basePath ?? '/v1').replace(/\/+$/, '')}`,
    fetch: (input, init) => service(new Request(input instanceof Request ? input : new URL(input, ORIGIN), init)),
    reset() {
      // The replaced storage's key sweep stops with it.
      void memory.close();
      memory = createMemoryStorage(seedPets);
      storage.clearFaults();
      injectInitialFaults();
    },
    inject: (fault) => storage.inject(fault),
    clearFaults: () => storage.clearFaults(),
  };
};
