/** @module The catalogue's operations: one API, in process (`createCatalogue`) and over HTTP (`createClient`). */
import type { ListQueryInput } from '../schemas/ListQuery.js';
import type { Pet } from '../schemas/Pet.js';
import type { PetStatus } from '../schemas/PetStatus.js';

/** Where the next page starts: the query to ask for it, as the page before obeyed it. */
export interface NextPageQuery {
  limit: number;
  status?: PetStatus;
  cursor: string;
}

/** One page of animals and, when more remain, how to ask for the next one. */
export interface PetPage {
  pets: Pet[];
  /** The whole query of the next page (`limit`, `status`, `cursor`): pass it to `listPets`; absent on the last page. */
  next?: NextPageQuery;
}

/** How to create an animal, beyond the animal itself. */
export interface CreatePetOptions {
  /**
   * Makes the create safe to retry: with the same key and the same animal, a repeat answers
   * with the animal the first call stored, and stores nothing. Keys live a day (configurable).
   */
  idempotencyKey?: string;
}

/** A listPets query without its cursor: what the iterators walk from the first page on. */
export type PetsQuery = Omit<ListQueryInput, 'cursor'>;

/**
 * The catalogue's operations. The in-process catalogue fails with an `AnimalStoreError`,
 * the HTTP client with an `AnimalStoreClientError`; both carry the same codes.
 */
export interface Catalogue {
  /**
   * One page of animals in ascending id order: `limit` (1–100, default 20), `status`,
   * `cursor`. The query may also be given as a URL's search parameters, as sent over HTTP.
   */
  listPets(query?: ListQueryInput | URLSearchParams): Promise<PetPage>;
  /** Every matching animal, a page at a time, following cursors until the last page. */
  pages(query?: PetsQuery): AsyncGenerator<Pet[], void, undefined>;
  /** Every matching animal, one at a time, following cursors until the last page. */
  allPets(query?: PetsQuery): AsyncGenerator<Pet, void, undefined>;
  /**
   * Adds an animal: a NewPet (`name`, `categoryId`, optional `status`), checked at run time,
   * so a value from anywhere (a parsed request body, say) can be passed as it is. Resolves
   * with the animal and its new id once it is stored durably.
   */
  createPet(newPet: unknown, options?: CreatePetOptions): Promise<Pet>;
  /** The animal with this id; `not_found` when there is none. */
  getPet(id: number): Promise<Pet>;
}
