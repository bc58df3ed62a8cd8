/** @module The three operations of the interface, as HTTP handlers over the catalogue. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import type { Catalogue } from '../catalogue/Catalogue.js';
import { parsePetId } from '../catalogue/petId.js';
import { readJsonBody } from '../http/readJsonBody.js';
import type { RouteHandler } from './createRouter.js';

/** GET {base}/pets: a page of animals, with a `Link rel="next"` while more remain. */
export const listPetsRoute =
  (catalogue: Catalogue): RouteHandler =>
  async ({ url, base, respond }) => {
    const { pets, next } = await catalogue.listPets(url.searchParams);
    if (next === undefined) return respond.json(200, pets);
    // The query the catalogue obeyed; every part is URL-safe as it stands (digits, a status word, base64url).
    const query = `limit=${next.limit}${next.status === undefined ? '' : `&status=${next.status}`}&cursor=${next.cursor}`;
    return respond.json(200, pets, { link: `<${base}/pets?${query}>; rel="next"` });
  };

/** POST {base}/pets: validates, stores durably, answers 201 with the animal and its Location. */
export const createPetRoute =
  (catalogue: Catalogue): RouteHandler =>
  async ({ request, base, respond }) => {
    const pet = await catalogue.createPet(await readJsonBody(request));
    return respond.json(201, pet, { location: `${base}/pets/${pet.id}` });
  };

/** GET {base}/pets/{petId}: one animal, with the route's deprecation headers. */
export const getPetRoute =
  (catalogue: Catalogue): RouteHandler =>
  async ({ petId = '', headers, respond }) => {
    const id = parsePetId(petId);
    if (id === undefined) throw new AnimalStoreError('not_found', `No animal has the id ${petId}.`);
    return respond.json(200, await catalogue.getPet(id), headers);
  };
