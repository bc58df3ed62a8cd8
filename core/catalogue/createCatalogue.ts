/** @module The in-process catalogue: list, create and get animals, with no HTTP in between. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { type Sha256, webCryptoSha256 } from '../digest.js';
import { type MaybePromise, whenReady } from '../MaybePromise.js';
import type { PetStorage } from '../PetStorage.js';
import { ListQuery, type ListQueryInput } from '../schemas/ListQuery.js';
import type { Pet } from '../schemas/Pet.js';
import type { PetStatus } from '../schemas/PetStatus.js';
import { validate } from '../validate.js';
import type { Catalogue, NextPageQuery, PetPage, PetsQuery } from './Catalogue.js';
import { createCursorCodec } from './createCursorCodec.js';
import { createPetCreation, DEFAULT_IDEMPOTENCY_KEY_LIFETIME_SECONDS, type PetCreation } from './createPetCreation.js';
import { checkPetId } from './petId.js';
import { readListQuery } from './readListQuery.js';

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
  /** Wall-clock time in milliseconds since the epoch, for Idempotency-Key lifetimes; `Date.now` by default. */
  now?: () => number;
  /** How long an Idempotency-Key is kept, in seconds; a day by default. */
  idempotencyKeyLifetimeSeconds?: number;
}

/** The scope of keys given to the in-process catalogue, which has no API key to tell callers apart. */
const IN_PROCESS_SCOPE = 'in-process';

/** Walks the pages of a catalogue from the first, following each page's `next` query. */
export async function* walkPages(listPets: Catalogue['listPets'], query: PetsQuery = {}): AsyncGenerator<Pet[], void, undefined> {
  let page = await listPets(query);
  for (;;) {
    if (page.pets.length > 0) yield page.pets;
    if (page.next === undefined) return;
    page = await listPets(page.next);
  }
}

/** Which animals a page holds: up to `limit` after the animal `after`, of one status or any. */
interface PageRequest {
  after: number;
  limit: number;
  status: PetStatus | undefined;
}

/** The cursor secret when none is given: public, so default cursors are tamper-evident but not unforgeable. */
const DEFAULT_CURSOR_SECRET = 'animal-store/cursor/v1';

/** Builds the in-process catalogue over a storage. The HTTP handlers are built on this. */
export const createCatalogue = (options: CatalogueOptions): Catalogue => createCatalogueParts(options).catalogue;

/** What the HTTP routes are built on: the catalogue, and two of its steps as the routes need them. */
export interface CatalogueParts {
  catalogue: Catalogue;
  /** The creation step, which tells the route of replays. */
  creation: PetCreation;
  /** getPet, answering at once when the storage does (the catalogue's own always answers a promise). */
  getPet(id: number): MaybePromise<Pet>;
  /** listPets, answering at once when the storage and the cursors do (the catalogue's own always answers a promise). */
  listPets(query: ListQueryInput | URLSearchParams): MaybePromise<PetPage>;
  /** listPets answered with the page's JSON text, present when the storage makes it (`PetStorage.listText`). */
  listPetsText?(query: URLSearchParams): Promise<PetPageTextAnswer>;
}

/** A page as `listPetsText` answers it: its JSON text and, when more remain, the next page's query. */
export interface PetPageTextAnswer {
  text: string;
  next?: NextPageQuery;
}

/** The catalogue, and the steps its HTTP routes are built on. */
export const createCatalogueParts = ({
  storage,
  cursorSecret = DEFAULT_CURSOR_SECRET,
  sha256 = webCryptoSha256,
  now = Date.now,
  idempotencyKeyLifetimeSeconds = DEFAULT_IDEMPOTENCY_KEY_LIFETIME_SECONDS,
}: CatalogueOptions): CatalogueParts => {
  const cursors = createCursorCodec(cursorSecret, sha256);
  const creation = createPetCreation({ storage, sha256, now, keyLifetimeSeconds: idempotencyKeyLifetimeSeconds });

  /** The page a list query asks for: its size, its filter, and the animal it starts after. */
  const readPage = (query: ListQueryInput | URLSearchParams): MaybePromise<PageRequest> => {
    const input = query instanceof URLSearchParams ? readListQuery(query) : query;
    const { limit, status, cursor } = validate(ListQuery, input, {
      what: 'The list query',
      rootName: 'query',
      knownKeys: ListQuery.entries,
    });
    if (cursor === undefined) return { after: 0, limit, status };
    return whenReady(cursors.decode(cursor, status), ({ after }) => ({ after, limit, status }));
  };
  /** The query of the page after the animal `lastId`. */
  const nextPage = (lastId: number, limit: number, status: PetStatus | undefined): MaybePromise<NextPageQuery> =>
    whenReady(cursors.encode({ after: lastId, status }), (cursor) =>
      status === undefined ? { limit, cursor } : { limit, cursor, status },
    );

  // Each step answers at once when it can (memory and the JSON file hold their animals; a
  // cursor made or checked lately is kept), so a page can be answered in its request's turn.
  const listPage = (query: ListQueryInput | URLSearchParams): MaybePromise<PetPage> =>
    whenReady(readPage(query), ({ after, limit, status }) =>
      // One more than asked tells whether a next page exists without a second look.
      whenReady(storage.list({ after, limit: limit + 1, status }), (pets): MaybePromise<PetPage> => {
        if (pets.length <= limit) return { pets };
        pets.length = limit;
        return whenReady(nextPage(pets[limit - 1]!.id, limit, status), (next) => ({ pets, next }));
      }),
    );
  const listPets: Catalogue['listPets'] = async (query = {}) => listPage(query);

  const { listText } = storage;
  const listPetsText =
    listText === undefined
      ? undefined
      : async (query: URLSearchParams): Promise<PetPageTextAnswer> => {
          const { after, limit, status } = await readPage(query);
          const { text, nextAfter } = await listText.call(storage, { after, limit, status });
          return nextAfter === undefined ? { text } : { text, next: await nextPage(nextAfter, limit, status) };
        };

  const pages: Catalogue['pages'] = (query) => walkPages(listPets, query);

  const getPet = (id: number): MaybePromise<Pet> => {
    checkPetId(id);
    return whenReady(id >= 1 ? storage.get(id) : undefined, (pet) => {
      if (!pet) throw new AnimalStoreError('not_found', `No animal has the id ${id}.`);
      return pet;
    });
  };

  const catalogue: Catalogue = {
    listPets,
    pages,
    async *allPets(query) {
      for await (const page of pages(query)) yield* page;
    },
    async createPet(newPet, options) {
      const key = options?.idempotencyKey;
      return (await creation.create(newPet, key === undefined ? undefined : { key, scope: IN_PROCESS_SCOPE })).pet;
    },
    getPet: async (id) => getPet(id),
  };
  const parts: CatalogueParts = { catalogue, creation, getPet, listPets: listPage };
  if (listPetsText !== undefined) parts.listPetsText = listPetsText;
  return parts;
};
