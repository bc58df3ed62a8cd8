/** @module The three operations of the interface, as HTTP handlers over the catalogue. */

import { AnimalStoreError } from '../AnimalStoreError.js';
import type { Catalogue } from '../createCatalogue.js';
import { LIMIT_DEFAULT } from '../schemas/ListQuery.js';
import type { PetStatus } from '../schemas/PetStatus.js';
import { parsePetId } from './parsePetId.js';
import { readJsonBody } from './readJsonBody.js';
import { readListQuery } from './readListQuery.js';
import type { Responder } from './responses.js';

/** What a route handler is given besides the request. */
export interface RouteContext {
  request: Request;
  url: URL;
  /** Where the operations live, as clients see it: mount path plus base path. */
  base: string;
  /** The path segment after `/pets/`, for getPet. */
  petId?: string;
  /** Headers the route adds to every answer (the deprecation headers of getPet). */
  headers?: Record<string, string>;
}

/** GET {base}/pets: a page of animals, with a `Link rel="next"` while more remain. */
export const listPetsRoute =
  (catalogue: Catalogue, respond: Responder) =>
  async ({ url, base }: RouteContext) => {
    const query = readListQuery(url.searchParams);
    const { pets, nextCursor } = await catalogue.listPets(query);
    if (nextCursor === undefined) return respond.json(200, pets);
    // listPets has validated the query by now, so these are the limit and status it obeyed.
    const status = query.status as PetStatus | undefined;
    // Every part is URL-safe as it stands (digits, a status word, a base64url cursor): no encoding needed.
    const next = `limit=${query.limit ?? LIMIT_DEFAULT}${status === undefined ? '' : `&status=${status}`}&cursor=${nextCursor}`;
    return respond.json(200, pets, { link: `<${base}/pets?${next}>; rel="next"` });
  };

/** POST {base}/pets: validates, stores durably, answers 201 with the animal and its Location. */
export const createPetRoute =
  (catalogue: Catalogue, respond: Responder) =>
  async ({ request, base }: RouteContext) => {
    const body = await readJsonBody(request);
    const pet = await catalogue.createPet(body as never);
    return respond.json(201, pet, { location: `${base}/pets/${pet.id}` });
  };

/** GET {base}/pets/{petId}: one animal, with the route's deprecation headers. */
export const getPetRoute =
  (catalogue: Catalogue, respond: Responder) =>
  async ({ petId = '', headers }: RouteContext) => {
    const id = parsePetId(petId);
    if (id === undefined) throw new AnimalStoreError('not_found', `No animal has the id ${petId}.`);
    return respond.json(200, await catalogue.getPet(id), headers);
  };
