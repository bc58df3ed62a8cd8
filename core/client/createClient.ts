/**
 * @module A typed HTTP client for the service: the same types as the server, from the same
 * schemas, over any `fetch`. No Node import, so it runs in browsers and fetch runtimes too.
 */
import * as v from 'valibot';
import { ErrorBody } from '../schemas/ErrorBody.js';
import type { ListQueryInput } from '../schemas/ListQuery.js';
import type { NewPetInput } from '../schemas/NewPet.js';
import { Pet, Pets } from '../schemas/Pet.js';
import { AnimalStoreClientError } from './AnimalStoreClientError.js';
import { nextLink } from './nextLink.js';

/** How to reach the service. */
export interface ClientOptions {
  /** Where the operations live, base path included: `http://127.0.0.1:8080/v1`. */
  baseUrl: string | URL;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The fetch to use; the global one by default. Pass a test double or an in-process handler here. */
  fetch?: (request: Request) => Promise<Response>;
}

/** One page of animals and, when more remain, the cursor of the next page. */
export interface ClientPetPage {
  pets: Pet[];
  /** Pass as `cursor` to `listPets` for the next page; absent on the last page. */
  nextCursor?: string;
}

/** The service's operations over HTTP. Every failure is an AnimalStoreClientError. */
export interface AnimalStoreClient {
  /** One page of animals in ascending id order: `limit` (1–100, default 20), `status`, `cursor`. */
  listPets(query?: ListQueryInput): Promise<ClientPetPage>;
  /** Every animal matching the query, following the `Link: rel="next"` header page by page. */
  allPets(query?: Omit<ListQueryInput, 'cursor'>): AsyncIterable<Pet>;
  /** Adds an animal; resolves with it and its new id once the service has stored it. */
  createPet(newPet: NewPetInput): Promise<Pet>;
  /**
   * The animal with this id; `not_found` when there is none.
   * @deprecated The service removes GET /pets/{petId} on 5 December 2030; use `listPets` with `status`.
   */
  getPet(id: number): Promise<Pet>;
}

/** Reads a body as JSON, or fails with `invalid_response` naming what came back. */
const readJson = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (cause) {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new AnimalStoreClientError(
      {
        code: 'invalid_response',
        status: response.status,
        message: `The service answered ${response.status} with a body that is not JSON (${type}); is the base URL right?`,
      },
      { cause },
    );
  }
};

/** Turns a failed response into the error it carries. */
const failure = async (response: Response): Promise<AnimalStoreClientError> => {
  const body = v.safeParse(ErrorBody, await readJson(response));
  if (body.success) return new AnimalStoreClientError(body.output);
  return new AnimalStoreClientError({
    code: 'invalid_response',
    status: response.status,
    message: `The service answered ${response.status} without an Error body; is the base URL right?`,
  });
};

/** Checks a successful body against the schema the server answers with. */
const expect = <S extends v.GenericSchema>(schema: S, value: unknown, what: string, status: number): v.InferOutput<S> => {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new AnimalStoreClientError({ code: 'invalid_response', status, message: `The service's answer is not ${what}.` });
};

/**
 * Creates a client.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'secret' });
 * const rex = await client.createPet({ name: 'Rex', categoryId: 1 });
 * for await (const pet of client.allPets({ status: 'available' })) console.log(pet.name);
 */
export const createClient = ({
  baseUrl,
  apiKey,
  fetch: fetchFn = (request) => globalThis.fetch(request),
}: ClientOptions): AnimalStoreClient => {
  const base = new URL(String(baseUrl).replace(/\/+$/, ''));
  const petsUrl = `${base.href.replace(/\/+$/, '')}/pets`;

  /** Sends a request; resolves with the response when it is a success, else throws its error. */
  const call = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${apiKey}`);
    headers.set('accept', 'application/json');
    let response: Response;
    try {
      response = await fetchFn(new Request(url, { ...init, headers }));
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new AnimalStoreClientError({ code: 'network_error', status: 0, message: `Could not reach ${url}: ${reason}.` }, { cause });
    }
    if (!response.ok) throw await failure(response);
    return response;
  };

  /** Fetches one page at a URL; the next page's URL comes from the Link header, same origin only. */
  const page = async (url: string): Promise<{ pets: Pet[]; next: URL | undefined }> => {
    const response = await call(url);
    const pets = expect(Pets, await readJson(response), 'a list of animals', response.status);
    const link = nextLink(response.headers.get('link'));
    if (link === undefined) return { pets, next: undefined };
    const next = new URL(link, base);
    // The API key goes wherever the link points: never to another origin.
    if (next.origin !== base.origin) {
      throw new AnimalStoreClientError({
        code: 'invalid_response',
        status: response.status,
        message: `The next-page link points to another origin (${next.origin}); not following it.`,
      });
    }
    return { pets, next };
  };

  const listUrl = (query: ListQueryInput): string => {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.status !== undefined) params.set('status', query.status);
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    const search = params.toString();
    return search === '' ? petsUrl : `${petsUrl}?${search}`;
  };

  return {
    async listPets(query = {}) {
      const { pets, next } = await page(listUrl(query));
      const nextCursor = next?.searchParams.get('cursor') ?? undefined;
      return nextCursor === undefined ? { pets } : { pets, nextCursor };
    },

    async *allPets(query = {}) {
      let url: string | undefined = listUrl(query);
      while (url !== undefined) {
        const { pets, next } = await page(url);
        yield* pets;
        url = next?.href;
      }
    },

    async createPet(newPet) {
      const response = await call(petsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(newPet),
      });
      return expect(Pet, await readJson(response), 'an animal', response.status);
    },

    async getPet(id) {
      const response = await call(`${petsUrl}/${encodeURIComponent(String(id))}`);
      return expect(Pet, await readJson(response), 'an animal', response.status);
    },
  };
};
