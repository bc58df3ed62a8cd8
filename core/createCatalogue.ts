/** @module The in-process catalogue: list, create and get animals, with no HTTP in between. */
import { AnimalStoreError } from './AnimalStoreError.js';
import { createCursorCodec } from './cursor.js';
import { type Sha256, webCryptoSha256 } from './digest.js';
import type { PetStorage } from './PetStorage.js';
import { ListQuery, type ListQueryInput } from './schemas/ListQuery.js';
import { NEW_PET_FIELDS, NewPet, type NewPetInput } from './schemas/NewPet.js';
import type { Pet } from './schemas/Pet.js';
import { validate } from './validate.js';

/** What a catalogue is built from. */
export interface CatalogueOptions {
  /** Where the animals live: `createMemoryStorage()`, `openJsonFileStorage(...)` or your own. */
  storage: PetStorage;
  /**
   * The secret that seals page cursors. With the default, cursors are still tamper-evident
   * and survive restarts; set your own to make them unforgeable by anyone reading this code.
   */
  cursorSecret?: string;
  /** SHA-256 to seal cursors with; Web Crypto unless given (a runtime's native hash is faster). */
  sha256?: Sha256;
}

/** One page of animals and, when more remain, the cursor of the next page. */
export interface PetPage {
  pets: Pet[];
  /** Present while more animals remain; absent on the last page. */
  nextCursor?: string;
}

/** The catalogue's operations. Each validates its input and fails with an AnimalStoreError. */
export interface Catalogue {
  /** One page of animals in ascending id order: `limit` (1–100, default 20), `status`, `cursor`. */
  listPets(query?: ListQueryInput): Promise<PetPage>;
  /** Every animal matching the query, page by page, following cursors until the last page. */
  pages(query?: Omit<ListQueryInput, 'cursor'>): AsyncGenerator<Pet[], void, undefined>;
  /** Validates a NewPet, stores it durably, and resolves with the animal and its new id. */
  createPet(newPet: NewPetInput): Promise<Pet>;
  /** The animal with this id; `not_found` when there is none. */
  getPet(id: number): Promise<Pet>;
}

/** The default cursor secret; see `CatalogueOptions.cursorSecret`. */
export const DEFAULT_CURSOR_SECRET = 'animal-store/cursor/v1';

/** Builds the in-process catalogue over a storage. The HTTP handlers are built on this. */
export const createCatalogue = ({
  storage,
  cursorSecret = DEFAULT_CURSOR_SECRET,
  sha256 = webCryptoSha256,
}: CatalogueOptions): Catalogue => {
  const cursors = createCursorCodec(cursorSecret, sha256);

  const listPets: Catalogue['listPets'] = async (query = {}) => {
    const { limit, status, cursor } = validate(ListQuery, query, {
      what: 'The list query',
      rootName: 'query',
      knownKeys: ListQuery.entries,
    });
    const after = cursor === undefined ? 0 : (await cursors.decode(cursor, status)).after;
    // One more than asked tells whether a next page exists without a second look.
    const pets = await storage.list({ after, limit: limit + 1, status });
    if (pets.length <= limit) return { pets };
    const page = pets.slice(0, limit);
    return { pets: page, nextCursor: await cursors.encode({ after: page[limit - 1]!.id, status }) };
  };

  return {
    listPets,

    async *pages(query = {}) {
      let cursor: string | undefined;
      do {
        const page = await listPets({ ...query, ...(cursor === undefined ? {} : { cursor }) });
        if (page.pets.length > 0) yield page.pets;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    },

    async createPet(newPet) {
      const valid = validate(NewPet, newPet, { what: 'The animal', rootName: 'body', knownKeys: NEW_PET_FIELDS });
      return storage.create(valid);
    },

    async getPet(id) {
      if (!Number.isSafeInteger(id)) {
        throw new AnimalStoreError('validation_failed', 'The pet id must be an integer.', {
          details: [{ path: 'petId', message: 'must be an integer' }],
        });
      }
      const pet = id >= 1 ? await storage.get(id) : undefined;
      if (!pet) throw new AnimalStoreError('not_found', `No animal has the id ${id}.`);
      return pet;
    },
  };
};
