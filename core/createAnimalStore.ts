/** @module The service as one function from a Web Request to a Response. */
import { AnimalStoreError } from './AnimalStoreError.js';
import { type Caller, createBearerCheck } from './bearer.js';
import { type Catalogue, createCatalogue } from './createCatalogue.js';
import { type Sha256, webCryptoSha256 } from './digest.js';
import { type CorsOptions, createCors } from './http/cors.js';
import { deprecationHeaders } from './http/deprecation.js';
import { createOpenApiDocument } from './http/openApiDocument.js';
import { createPetRoute, getPetRoute, listPetsRoute, type RouteContext } from './http/petRoutes.js';
import { createResponder } from './http/responses.js';
import type { PetStorage } from './PetStorage.js';

/** One line of the access log: never a key, never a body. */
export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  milliseconds: number;
}

/** Where the service reports; every member is optional. */
export interface AnimalStoreLogger {
  /** Called once per request, after the response is made. */
  access?(entry: AccessLogEntry): void;
  /** Notable events, such as the first deprecated call by a key. */
  warn?(message: string): void;
  /** Unexpected failures, with the error; the client only ever sees a bare 500. */
  error?(message: string, error: unknown): void;
}

/** How to build the service. Everything that varies between embeddings is passed in. */
export interface AnimalStoreOptions {
  /** Where the animals live. */
  storage: PetStorage;
  /** The API keys accepted as `Authorization: Bearer <key>`; several at once for rotation. */
  keys: readonly string[];
  /** The path the operations live under; `/v1` by default. */
  basePath?: string;
  /** Milliseconds from some fixed point, for the access log's timings; `Date.now` by default. */
  clock?: () => number;
  /** Browser origins allowed to call the API; none by default. */
  cors?: CorsOptions;
  /** Reporting of access, warnings and failures; warnings and failures go to `console` by default. */
  logger?: AnimalStoreLogger;
  /** The secret that seals page cursors (see `createCatalogue`). */
  cursorSecret?: string;
  /** SHA-256 for key digests and cursor seals; Web Crypto by default. */
  sha256?: Sha256;
  /**
   * The fetch API classes to answer with; the runtime's `Response` by default. A server
   * adapter passes its own when it can send those faster (see adapters/node.ts).
   */
  fetchAPI?: { Response: typeof Response };
}

/** How often one key has called the deprecated getPet. */
export interface DeprecatedUse {
  keyIndex: number;
  keyFingerprint: string;
  calls: number;
}

/** Extra facts an adapter knows about a request. */
export interface RequestContext {
  /** The path the service is mounted at by a framework (Express's `req.baseUrl`), if any. */
  mountPath?: string;
}

/** The service: a fetch-style handler, plus its catalogue for in-process use. */
export interface AnimalStore {
  (request: Request, context?: RequestContext): Promise<Response>;
  /** The in-process catalogue the handlers are built on. */
  catalogue: Catalogue;
  /** Calls of the deprecated getPet, per key. */
  deprecatedUses(): DeprecatedUse[];
}

type Route = (context: RouteContext) => Promise<Response>;
type Methods = Partial<Record<'GET' | 'POST', Route>>;

/** Normalises a base path: a leading slash, no trailing one; `''` or `/` means the root. */
const normaliseBasePath = (basePath: string): string => {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) {
    throw new TypeError(`The base path ${JSON.stringify(basePath)} must start with "/" and hold only URL-safe characters.`);
  }
  return trimmed;
};

const allowOf = (methods: Methods): string => [...(methods.GET ? ['GET', 'HEAD'] : []), ...(methods.POST ? ['POST'] : [])].join(', ');

/**
 * Creates the service. The result answers any Web Request under the base path (`/v1`),
 * plus `/healthz`, and never throws: every failure becomes an Error response.
 */
export const createAnimalStore = (options: AnimalStoreOptions): AnimalStore => {
  const basePath = normaliseBasePath(options.basePath ?? '/v1');
  const sha256 = options.sha256 ?? webCryptoSha256;
  const clock = options.clock ?? Date.now;
  const logger = options.logger ?? {};
  const warn = logger.warn ?? ((message: string) => console.warn(message));
  const reportError = logger.error ?? ((message: string, error: unknown) => console.error(message, error));
  const checkBearer = createBearerCheck(options.keys, sha256);
  const cors = createCors(options.cors);
  const respond = createResponder(options.fetchAPI?.Response ?? Response, reportError);
  const catalogue = createCatalogue({
    storage: options.storage,
    sha256,
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
  });

  const pets: Methods = { GET: listPetsRoute(catalogue, respond), POST: createPetRoute(catalogue, respond) };
  const pet: Methods = { GET: getPetRoute(catalogue, respond) };
  const openApiDocuments = new Map<string, string>();
  const openApi: Methods = {
    GET: async ({ base }) => {
      let document = openApiDocuments.get(base);
      if (document === undefined) {
        document = JSON.stringify(createOpenApiDocument(base));
        openApiDocuments.set(base, document);
      }
      return respond.jsonText(200, document);
    },
  };
  const health: Methods = { GET: async () => respond.json(200, { status: 'ok' }) };

  const deprecatedUses = new Map<number, DeprecatedUse>();
  const countDeprecatedUse = (caller: Caller, base: string) => {
    const use = deprecatedUses.get(caller.keyIndex);
    if (use) return void use.calls++;
    deprecatedUses.set(caller.keyIndex, { ...caller, calls: 1 });
    warn(
      `deprecated GET ${base}/pets/{petId} called with API key #${caller.keyIndex + 1} (sha256 ${caller.keyFingerprint}…); ` +
        `it will be removed on 5 December 2030; use GET ${base}/pets?status=… instead`,
    );
  };

  /** Finds the route of a path: which methods, which petId, and whether a key is needed. */
  const match = (path: string, mountPath: string) => {
    if (path === `${mountPath}/healthz`) return { methods: health, public: true };
    const prefix = `${mountPath}${basePath}/`;
    if (!path.startsWith(prefix)) return undefined;
    const rest = path.slice(prefix.length);
    if (rest === 'pets') return { methods: pets };
    if (rest === 'openapi.json') return { methods: openApi, public: true };
    if (rest.startsWith('pets/') && rest.length > 5 && !rest.includes('/', 5)) {
      return { methods: pet, petId: rest.slice(5), deprecated: true };
    }
    return undefined;
  };

  const handle = async (request: Request, url: URL, mountPath: string): Promise<Response> => {
    const base = `${mountPath}${basePath}`;
    const route = match(url.pathname, mountPath);
    const preflight = request.method === 'OPTIONS' ? cors.preflight(request, route && allowOf(route.methods)) : undefined;
    if (preflight) return preflight;

    // Authentication comes first, so a caller without a key learns nothing about paths.
    const caller = route?.public ? undefined : await checkBearer(request.headers.get('authorization'));
    if (!route) {
      throw new AnimalStoreError('not_found', `There is nothing at ${url.pathname.slice(0, 64)}; the operations live under ${base}/pets.`);
    }
    const headers = route.deprecated ? deprecationHeaders(base) : undefined;
    if (route.deprecated && caller) countDeprecatedUse(caller, base);
    try {
      const handler = route.methods[(request.method === 'HEAD' ? 'GET' : request.method) as keyof Methods];
      if (!handler) {
        const allow = allowOf(route.methods);
        throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use ${allow}.`, {
          headers: { allow },
        });
      }
      const context: RouteContext = { request, url, base };
      if (route.petId !== undefined) context.petId = route.petId;
      if (headers) context.headers = headers;
      return await handler(context);
    } catch (error) {
      // The route's own headers (deprecation) mark its errors too, once a caller is known.
      if (!headers) throw error;
      return respond.error(error, `${request.method} ${url.pathname}`, headers);
    }
  };

  const store = (async (request: Request, context?: RequestContext) => {
    const started = clock();
    const url = new URL(request.url);
    const mountPath = context?.mountPath?.replace(/\/+$/, '') ?? '';
    let response: Response;
    try {
      response = await handle(request, url, mountPath);
    } catch (error) {
      response = respond.error(error, `${request.method} ${url.pathname}`);
    }
    if (request.method === 'HEAD') response = await respond.withoutBody(response);
    response = cors.decorate(request, response);
    logger.access?.({ method: request.method, path: url.pathname, status: response.status, milliseconds: clock() - started });
    return response;
  }) as AnimalStore;
  store.catalogue = catalogue;
  store.deprecatedUses = () => [...deprecatedUses.values()].map((use) => ({ ...use }));
  return store;
};
