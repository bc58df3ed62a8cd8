/**
 * @module A typed HTTP client for the service: the same types as the server, from the same
 * schemas, over any `fetch`, with the catalogue's own methods. No Node import, so it runs in
 * browsers and fetch runtimes too.
 */
import * as v from 'valibot';
import { toBase64Url } from '../base64url.js';
import type { Catalogue, CreatePetOptions, PetPage, PetsQuery } from '../catalogue/Catalogue.js';
import { writeListQuery } from '../catalogue/writeListQuery.js';
import { ErrorBody } from '../schemas/ErrorBody.js';
import type { ListQueryInput } from '../schemas/ListQuery.js';
import type { NewPetInput } from '../schemas/NewPet.js';
import { Pet, Pets } from '../schemas/Pet.js';
import { sleep } from '../sleep.js';
import { AnimalStoreClientError } from './AnimalStoreClientError.js';
import { nextLink } from './nextLink.js';
import { createRevalidationCache } from './RevalidationCache.js';
import { readNextQuery } from './readNextQuery.js';
import { DEFAULT_RETRY, delayBeforeRetry, isRetryableStatus, type RetryOptions } from './retryPolicy.js';

/** How to reach the service, and how patiently. */
export interface ClientOptions {
  /** Where the operations live, base path included: `http://127.0.0.1:8080/v1`. */
  baseUrl: string | URL;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The fetch to use; the global one by default. Pass a test double or an in-process handler here. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds one try of a call may take before it is abandoned (and retried); 10,000 by default. */
  timeout?: number;
  /** Aborts every call of this client, in flight or later. */
  signal?: AbortSignal;
  /**
   * Tries again after failures that may pass (no answer: a connection refused, reset or
   * closed before any answer; a timeout; 502, 503, 504, 429 within the wait allowed; 409
   * while the same create is in flight); `false` tries once. Creates are retried with the
   * same Idempotency-Key, so a retry never stores a second animal.
   */
  retry?: RetryOptions | false;
  /**
   * Remembers recent GET answers and their ETags, and asks with If-None-Match, so an
   * unchanged page costs a bodiless 304; true by default.
   */
  revalidate?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts this call. */
  signal?: AbortSignal;
  /** Milliseconds one try of this call may take; the client's `timeout` by default. */
  timeout?: number;
}

/** Options of one create: an Idempotency-Key of your own (one is made per call otherwise), and the call's. */
export interface ClientCreatePetOptions extends CallOptions, CreatePetOptions {}

/** One page of animals and, when more remain, how to ask for the next one. */
export type ClientPetPage = PetPage;

/**
 * The catalogue's operations over HTTP, with the in-process catalogue's names; every failure
 * is an AnimalStoreClientError.
 */
export interface AnimalStoreClient extends Catalogue {
  /** One page of animals in ascending id order: `limit` (1–100, default 20), `status`, `cursor`. */
  listPets(query?: ListQueryInput, options?: CallOptions): Promise<PetPage>;
  /** Every matching animal, a page at a time, following the `Link: rel="next"` header. */
  pages(query?: PetsQuery, options?: CallOptions): AsyncGenerator<Pet[], void, undefined>;
  /** Every matching animal, one at a time, following the `Link: rel="next"` header. */
  allPets(query?: PetsQuery, options?: CallOptions): AsyncGenerator<Pet, void, undefined>;
  /**
   * Adds an animal; resolves with it and its new id once the service has stored it. Sends a
   * fresh Idempotency-Key (or yours), and retries with it after failures that may pass.
   */
  createPet(newPet: NewPetInput, options?: ClientCreatePetOptions): Promise<Pet>;
  /**
   * The animal with this id; `not_found` when there is none.
   * @deprecated The service removes GET /pets/{petId} on 5 December 2030; use `listPets` with `status`.
   */
  getPet(id: number, options?: CallOptions): Promise<Pet>;
}

/** Reads a body as JSON, or fails with `invalid_response` naming what came back. */
const parseJson = (text: string, response: Response): unknown => {
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
  const body = v.safeParse(ErrorBody, parseJson(await response.text(), response));
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

/** A fresh Idempotency-Key: 128 random bits (getRandomValues works outside secure contexts, unlike randomUUID). */
const freshKey = (): string => toBase64Url(crypto.getRandomValues(new Uint8Array(16)));

/** The signal of one try: the caller's and the client's, and the try's own deadline. */
const signalOfTry = (signals: (AbortSignal | undefined)[], timeout: number): { signal: AbortSignal; timedOut: AbortSignal } => {
  const timedOut = AbortSignal.timeout(timeout);
  return { signal: AbortSignal.any([...signals.filter((signal) => signal !== undefined), timedOut]), timedOut };
};

/**
 * Why a fetch failed, in words: fetch's own message is only "fetch failed", the reason (a
 * reset, a connection closed before any answer) is its cause's.
 */
const fetchFailureReason = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const { cause } = error as Error & { cause?: unknown };
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as Error & { code?: unknown }).code;
  return `${error.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
};

/** What one try ended with, when it did not end with a response. */
const tryFailure = (url: string, cause: unknown, timedOut: boolean, aborted: boolean): AnimalStoreClientError => {
  if (aborted) return new AnimalStoreClientError({ code: 'aborted', status: 0, message: `The call to ${url} was aborted.` }, { cause });
  if (timedOut) return new AnimalStoreClientError({ code: 'timeout', status: 0, message: `${url} did not answer in time.` }, { cause });
  return new AnimalStoreClientError(
    { code: 'network_error', status: 0, message: `Could not reach ${url}: ${fetchFailureReason(cause)}.` },
    { cause },
  );
};

/**
 * Creates a client.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'a-key-of-16-chars-or-more' });
 * const rex = await client.createPet({ name: 'Rex', categoryId: 1 });
 * for await (const pet of client.allPets({ status: 'available' })) console.log(pet.name);
 */
export const createClient = (options: ClientOptions): AnimalStoreClient => {
  const { baseUrl, apiKey, timeout: defaultTimeout = 10_000, signal: clientSignal, revalidate = true } = options;
  const fetchFn = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const retry = options.retry === false ? { ...DEFAULT_RETRY, attempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
  const base = new URL(String(baseUrl).replace(/\/+$/, ''));
  const petsUrl = `${base.href.replace(/\/+$/, '')}/pets`;
  const cache = revalidate ? createRevalidationCache() : undefined;

  /**
   * Sends a request until it answers with a success (or 304), a failure that will not pass,
   * or the tries run out; resolves with the response, else throws its error.
   */
  const call = async (
    url: string,
    init: { method?: string; body?: string; headers?: Record<string, string> },
    callOptions: CallOptions = {},
  ) => {
    const { signal: callSignal, timeout = defaultTimeout } = callOptions;
    const headers = { ...init.headers, authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    for (let attempt = 1; ; attempt++) {
      const { signal, timedOut } = signalOfTry([clientSignal, callSignal], timeout);
      let response: Response | undefined;
      let error: AnimalStoreClientError | undefined;
      try {
        const request = new Request(url, { method: init.method ?? 'GET', headers, body: init.body ?? null, signal });
        // Some fetches (test doubles, in-process handlers) ignore the signal: the deadline holds anyway.
        response = await Promise.race([
          fetchFn(request),
          new Promise<never>((_, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
        ]);
      } catch (cause) {
        const aborted = clientSignal?.aborted === true || callSignal?.aborted === true;
        error = tryFailure(url, cause, timedOut.aborted, aborted);
        if (aborted) throw error;
      }
      if (response && (response.ok || response.status === 304)) return response;
      const retryable = response === undefined || isRetryableStatus(response.status);
      const delay = retryable ? delayBeforeRetry(retry, attempt, response?.headers.get('retry-after') ?? null) : undefined;
      if (delay === undefined) throw error ?? (await failure(response!));
      await response?.body?.cancel();
      try {
        await sleep(delay, callSignal && clientSignal ? AbortSignal.any([callSignal, clientSignal]) : (callSignal ?? clientSignal));
      } catch (cause) {
        throw tryFailure(url, cause, false, true);
      }
    }
  };

  /** A GET whose answer is JSON, revalidated from the cache when it holds one for the URL. */
  const getJson = async (url: string, callOptions?: CallOptions): Promise<{ value: unknown; link: string | null; status: number }> => {
    const cached = cache?.get(url);
    const response = await call(url, cached ? { headers: { 'if-none-match': cached.etag } } : {}, callOptions);
    if (response.status === 304 && cached) {
      // Read the (empty) body, so the connection is free again and no tool counts the answer as cancelled.
      await response.arrayBuffer();
      return { value: parseJson(cached.text, response), link: cached.link, status: 200 };
    }
    const text = await response.text();
    const etag = response.headers.get('etag');
    const link = response.headers.get('link');
    if (cache && etag !== null) cache.set(url, { etag, text, link });
    return { value: parseJson(text, response), link, status: response.status };
  };

  /** Fetches one page at a URL; the next page's URL comes from the Link header, same origin only. */
  const page = async (url: string, callOptions?: CallOptions): Promise<{ pets: Pet[]; next: URL | undefined; status: number }> => {
    const { value, link, status } = await getJson(url, callOptions);
    const pets = expect(Pets, value, 'a list of animals', status);
    const target = nextLink(link);
    if (target === undefined) return { pets, next: undefined, status };
    const next = new URL(target, base);
    // The API key goes wherever the link points: never to another origin.
    if (next.origin !== base.origin) {
      throw new AnimalStoreClientError({
        code: 'invalid_response',
        status,
        message: `The next-page link points to another origin (${next.origin}); not following it.`,
      });
    }
    return { pets, next, status };
  };

  const listUrl = (query: ListQueryInput): string => {
    const search = writeListQuery(query);
    return search === '' ? petsUrl : `${petsUrl}?${search}`;
  };

  async function* pages(query: PetsQuery = {}, callOptions?: CallOptions): AsyncGenerator<Pet[], void, undefined> {
    let url: string | undefined = listUrl(query);
    while (url !== undefined) {
      const { pets, next } = await page(url, callOptions);
      if (pets.length > 0) yield pets;
      url = next?.href;
    }
  }

  return {
    async listPets(query = {}, callOptions) {
      const { pets, next, status } = await page(listUrl(query), callOptions);
      const nextQuery = next === undefined ? undefined : readNextQuery(next, status);
      return nextQuery === undefined ? { pets } : { pets, next: nextQuery };
    },

    pages,

    async *allPets(query, callOptions) {
      for await (const found of pages(query, callOptions)) yield* found;
    },

    async createPet(newPet, { idempotencyKey = freshKey(), ...callOptions } = {}) {
      const response = await call(
        petsUrl,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': JSON.stringify(idempotencyKey) },
          body: JSON.stringify(newPet),
        },
        callOptions,
      );
      return expect(Pet, parseJson(await response.text(), response), 'an animal', response.status);
    },

    async getPet(id, callOptions) {
      const { value, status } = await getJson(`${petsUrl}/${encodeURIComponent(String(id))}`, callOptions);
      return expect(Pet, value, 'an animal', status);
    },
  };
};
