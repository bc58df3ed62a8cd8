/**
 * @module animal-store/fetch: the service for fetch runtimes (Bun, Deno, Cloudflare
 * Workers, framework route handlers), with in-memory storage. No Node import: this file
 * loads where there is no file system.
 *
 * `export { default } from 'animal-store/fetch'` is a whole worker; keys come from
 * `ANIMAL_STORE_API_KEYS` (comma-separated). `createFetchHandler` is the explicit setup.
 */

import { AnimalStoreError } from '../core/AnimalStoreError.js';
import { generateApiKey, parseApiKeyList } from '../core/auth/apiKeys.js';
import { errorResponse } from '../core/http/errorAnswerOf.js';
import { createPetService, type PetService, type PetServiceOptions } from '../core/index.js';
import { createMemoryStorage } from '../storage/createMemoryStorage.js';

/** The name of the environment variable holding the API keys, comma-separated. */
export const API_KEYS_VARIABLE = 'ANIMAL_STORE_API_KEYS';

/** How to build a fetch handler: the service's options, plus where it is mounted. */
export interface FetchHandlerOptions extends PetServiceOptions {
  /**
   * The path a framework routes to this handler, when the service does not own the whole
   * origin: for a Next.js route at `app/catalogue/[...path]/route.ts`, `/catalogue`.
   */
  mountPath?: string;
}

/** A fetch-runtime handler: `{ fetch }` is the shape Bun, Deno and Workers serve. */
export interface FetchHandler {
  /** Answers one request; never throws (every failure is an Error response). */
  fetch(request: Request): Promise<Response>;
  /** The service behind it, for its catalogue. */
  service: PetService;
}

/**
 * Creates a fetch handler from explicit options.
 *
 * @example
 * const handler = createFetchHandler({ storage: createMemoryStorage(), keys: ['secret'] });
 * Deno.serve(handler.fetch);
 */
export const createFetchHandler = ({ mountPath, ...options }: FetchHandlerOptions): FetchHandler => {
  const service = createPetService(options);
  const context = mountPath === undefined ? undefined : { mountPath };
  const reportError = options.logger?.error ?? ((message: string, error: unknown) => console.error(message, error));
  // The service answers every request itself; should it ever throw, the runtime's own error
  // page (which may show the stack) must not answer in its place.
  const fetch = (request: Request) =>
    service(request, context).catch((error: unknown) => {
      reportError(`${request.method} request failed`, error);
      return errorResponse(error);
    });
  return { fetch, service };
};

/** Environment variables as Workers pass them (`env`) or Node-like runtimes expose them. */
type Env = Record<string, unknown> | undefined;

let defaultHandler: FetchHandler | undefined;

/** The answer while the default handler cannot be built (keys that are not keys): an Error body, the reason in the log. */
const misconfigured = (reason: string): FetchHandler['fetch'] => {
  console.error(`animal-store: cannot serve: ${reason}`);
  const refusal = new AnimalStoreError('internal_error', 'The service is not configured correctly; its log says why.');
  return async () => errorResponse(refusal);
};

/**
 * Builds the default handler on its first request, when a Worker's `env` is first known.
 * Keys come from `env.ANIMAL_STORE_API_KEYS`, else from `process.env` where there is one.
 * With neither, one random key is made and logged once, as the standalone server does.
 */
const defaultHandlerFor = (env: Env): FetchHandler => {
  if (defaultHandler) return defaultHandler;
  const processEnv = (globalThis as { process?: { env?: Env } }).process?.env;
  // A Worker's env may hold bindings that are not strings; only a string is a key list.
  const keysIn = (variables: Env) => {
    const list = variables?.[API_KEYS_VARIABLE];
    return parseApiKeyList(typeof list === 'string' ? list : undefined);
  };
  let keys = keysIn(env);
  if (keys.length === 0) keys = keysIn(processEnv);
  if (keys.length === 0) {
    keys = [generateApiKey()];
    console.warn(`animal-store: ${API_KEYS_VARIABLE} is not set; generated an API key for this instance: ${keys[0]}`);
  }
  try {
    defaultHandler = createFetchHandler({ storage: createMemoryStorage(), keys });
  } catch (error) {
    const fetch = misconfigured(error instanceof Error ? error.message : String(error));
    defaultHandler = { fetch } as FetchHandler;
  }
  return defaultHandler;
};

/**
 * The default fetch-runtime service: in-memory storage (one catalogue per running
 * instance, gone when it stops), served at the origin's root (`/v1/pets`, `/healthz`).
 */
export default {
  /**
   * Answers one request.
   *
   * @param request The request.
   * @param env The bindings a Worker passes as the second argument, if any.
   */
  async fetch(request: Request, env?: Env): Promise<Response> {
    return defaultHandlerFor(env).fetch(request);
  },
};
