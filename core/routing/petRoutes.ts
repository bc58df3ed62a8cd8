/** @module The three operations of the interface, as HTTP handlers over the catalogue. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import type { NextPageQuery } from '../catalogue/Catalogue.js';
import type { CatalogueParts } from '../catalogue/createCatalogue.js';
import type { PetCreation } from '../catalogue/createPetCreation.js';
import { parsePetId } from '../catalogue/petId.js';
import { writeListQuery } from '../catalogue/writeListQuery.js';
import { type EntityTagger, ifNoneMatchHolds } from '../http/createEntityTagger.js';
import { readIdempotencyKey } from '../http/readIdempotencyKey.js';
import { readJsonBody } from '../http/readJsonBody.js';
import { withHeaders } from '../http/withHeaders.js';
import { whenReady } from '../MaybePromise.js';
import { createPageCache, createTextPageCache, type PageAnswer } from './createPageCache.js';
import type { PetTexts } from './createPetTexts.js';
import type { RouteHandler } from './createRouter.js';
import { KeptPerPet } from './KeptPerPet.js';
import type { RouteContext } from './RouteContext.js';

/** A 200 with its strong ETag, or a 304 when the client's copy (If-None-Match) is current. */
const answerWithTag = ({ request, respond, headers }: RouteContext, { text, etag }: PageAnswer, link?: string) => {
  const answerHeaders = withHeaders(headers, link === undefined ? { etag } : { etag, link });
  if (ifNoneMatchHolds(request.headers.get('if-none-match'), etag)) return respond.notModified(answerHeaders);
  return respond.jsonText(200, text, answerHeaders);
};

/**
 * GET {base}/pets: a page of animals, with a `Link rel="next"` while more remain. With
 * `listPetsText` (a storage that writes pages itself), the page's text is the storage's,
 * tagged as any other page (its tag kept while the same request gets the same text): the
 * same bytes, ETag and Link as from the animals.
 */
export const listPetsRoute = (
  listPets: CatalogueParts['listPets'],
  tagOf: EntityTagger,
  texts: PetTexts,
  listPetsText?: CatalogueParts['listPetsText'],
): RouteHandler => {
  const pageAnswer = createPageCache(tagOf, texts);
  const linkOf = (base: string, next: NextPageQuery | undefined) =>
    // The query the catalogue obeyed, written as the client will read it.
    next === undefined ? undefined : `<${base}/pets?${writeListQuery(next)}>; rel="next"`;
  if (listPetsText !== undefined) {
    const textAnswer = createTextPageCache(tagOf);
    return async (context) => {
      const { text, next } = await listPetsText(new URLSearchParams(context.search));
      const link = linkOf(context.base, next);
      return answerWithTag(context, await textAnswer(`${context.base}${context.search}`, text, link), link);
    };
  }
  // At once when the catalogue and the hash answer at once (memory, the JSON file), as getPet.
  return (context) =>
    whenReady(listPets(new URLSearchParams(context.search)), ({ pets, next }) => {
      const link = linkOf(context.base, next);
      return whenReady(pageAnswer(pets, link), (answer) => answerWithTag(context, answer, link));
    });
};

/** What createPet needs beyond the creation step: whether every create must carry an Idempotency-Key. */
export interface CreatePetRouteOptions {
  idempotencyKeyRequired: boolean;
}

/**
 * POST {base}/pets: validates, stores durably, answers 201 with the animal and its Location.
 * With an Idempotency-Key, a retry answers exactly as the first request did (same status,
 * body and Location), marked `Idempotent-Replayed: true`.
 */
export const createPetRoute =
  (creation: PetCreation, { idempotencyKeyRequired }: CreatePetRouteOptions): RouteHandler =>
  async ({ request, base, respond, headers, caller }) => {
    const key = readIdempotencyKey(request.headers.get('idempotency-key'));
    if (key === undefined && idempotencyKeyRequired) {
      throw new AnimalStoreError(
        'validation_failed',
        'This service requires an Idempotency-Key header on every create, such as Idempotency-Key: "8e03978e".',
        {
          details: [{ path: 'Idempotency-Key', message: 'is required' }],
        },
      );
    }
    const body = await readJsonBody(request);
    const { pet, replayed } = await creation.create(
      body,
      key === undefined || caller === undefined ? undefined : { key, scope: caller.keyFingerprint },
    );
    const location = `${base}/pets/${pet.id}`;
    return respond.json(201, pet, withHeaders(headers, replayed ? { location, 'idempotent-replayed': 'true' } : { location }));
  };

/**
 * GET {base}/pets/{petId}: one animal, with the route's deprecation headers; answered at
 * once when the storage and the hash answer at once. A frozen animal's text and tag are
 * kept (it cannot change; `KeptPerPet` bounds how many), so asking again hashes nothing.
 */
export const getPetRoute = (getPet: CatalogueParts['getPet'], tagOf: EntityTagger, { petText }: PetTexts): RouteHandler => {
  const answers = new KeptPerPet<PageAnswer>();
  return (context) => {
    const petId = context.petId ?? '';
    const id = parsePetId(petId);
    if (id === undefined) throw new AnimalStoreError('not_found', `No animal has the id ${petId}.`);
    return whenReady(getPet(id), (pet) => {
      const kept = answers.get(pet);
      if (kept !== undefined) return answerWithTag(context, kept);
      const text = petText(pet);
      return whenReady(tagOf(text), (etag) => {
        const answer = { text, etag };
        answers.keep(pet, answer);
        return answerWithTag(context, answer);
      });
    });
  };
};
