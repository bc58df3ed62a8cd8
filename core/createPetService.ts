/** @module The service: one function from a Web Request to a Response, as a list of steps. */
import type { ApiKey } from './auth/apiKeys.js';
import { createKeyRing, type KeyRing } from './auth/createKeyRing.js';
import type { Catalogue } from './catalogue/Catalogue.js';
import { createCatalogueParts } from './catalogue/createCatalogue.js';
import { createRequestIds } from './createRequestIds.js';
import { createStorageFailureLog } from './createStorageFailureLog.js';
import { type Sha256, webCryptoSha256 } from './digest.js';
import { type CorsOptions, createCors } from './http/createCors.js';
import { createEntityTagger } from './http/createEntityTagger.js';
import { createRateLimiter, type RateLimitOptions } from './http/createRateLimiter.js';
import { createResponder } from './http/createResponder.js';
import type { DocsAssets } from './http/docsPage.js';
import type { MaybePromise } from './MaybePromise.js';
import type { PetServiceLogger } from './PetServiceLogger.js';
import type { PetStorage } from './PetStorage.js';
import { createDeprecationTracker, type DeprecatedUse } from './routing/createDeprecationTracker.js';
import { createPetTexts } from './routing/createPetTexts.js';
import { createRouter, normaliseBasePath, type Route } from './routing/createRouter.js';
import { docsAssetRoute, docsRoute, openApiRoute } from './routing/documentRoutes.js';
import { healthRoute } from './routing/healthRoute.js';
import { createPetRoute, getPetRoute, listPetsRoute } from './routing/petRoutes.js';
import { describeFleet, syncRoutes } from './routing/syncRoutes.js';
import type { SyncKiosk, SyncStatus } from './schemas/SyncSchemas.js';
import { authStep } from './steps/authStep.js';
import { composeSteps, type Step } from './steps/composeSteps.js';
import { corsHeadersStep, preflightStep } from './steps/corsSteps.js';
import { handlerStep } from './steps/handlerStep.js';
import { parseStep } from './steps/parseStep.js';
import type { RequestState } from './steps/RequestState.js';
import { rateLimitStep } from './steps/rateLimitStep.js';
import { requestIdStep } from './steps/requestIdStep.js';
import { respondStep } from './steps/respondStep.js';
import { routeRulesStep } from './steps/routeRulesStep.js';
import { scopeStep } from './steps/scopeStep.js';
import { createFleet } from './sync/createFleet.js';

export type { DeprecatedUse } from './routing/createDeprecationTracker.js';

/** How to build the service. Everything that varies between embeddings is passed in. */
export interface PetServiceOptions {
  /** Where the animals live. */
  storage: PetStorage;
  /**
   * The API keys accepted as `Authorization: Bearer <key>`; several at once for rotation. A
   * plain string may do everything; an `ApiKey` (`{ key, scopes, name }`) only what its
   * scopes (`read`, `create`, `sync`) allow, and is named in logs, metrics and the fleet
   * view by its name. `service.keys.replace()` changes them while the service runs.
   */
  keys: readonly (string | ApiKey)[];
  /** The path the operations live under; `/v1` by default. */
  basePath?: string;
  /**
   * Gives every request an id: the caller's `X-Request-Id` when it is a safe token (1 to 128
   * letters, digits and `._:-`), else a new one; the answer carries it in `X-Request-Id` and
   * the access log in `requestId`. Off by default.
   */
  requestIds?: boolean;
  /**
   * The clock, in milliseconds since the epoch; `Date.now` by default. It decides when
   * Idempotency-Keys expire, rate-limit windows, and when the deprecated getPet is gone; read
   * once as a request arrives. A clock given here also times requests for the access log
   * (which otherwise uses `performance.now`, for sub-millisecond durations).
   */
  now?: () => number;
  /** The shortest API key accepted; 16 by default. Lower it only in tests. */
  minimumKeyLength?: number;
  /** Idempotency-Keys on POST /pets: optional by default, kept a day. */
  idempotency?: {
    /** Refuse a create without an Idempotency-Key (400). */
    required?: boolean;
    /** How long a key is kept after its first request, in seconds; 86,400 (a day) by default. */
    keyLifetimeSeconds?: number;
  };
  /** A rate limit per API key; none by default. */
  rateLimit?: RateLimitOptions;
  /**
   * The files of the API reference renderer (Swagger UI) for `{base}/docs`; without them the
   * page still documents the deprecation and links the OpenAPI document. The Node adapter
   * passes them when the optional `swagger-ui-dist` package is installed.
   */
  docsAssets?: DocsAssets;
  /** Browser origins allowed to call the API; none by default. */
  cors?: CorsOptions;
  /** Reporting of access, warnings and failures; warnings and failures go to `console` by default. */
  logger?: PetServiceLogger;
  /** The secret that seals page cursors (see `createCatalogue`). */
  cursorSecret?: string;
  /** SHA-256 for key digests and cursor seals; Web Crypto by default. */
  sha256?: Sha256;
  /**
   * The fetch API classes to answer with; the runtime's `Response` by default. A server
   * adapter passes its own when it can send those faster (see adapters/node/serve.ts).
   */
  fetchAPI?: { Response: typeof Response };
  /** Sync as a kiosk: where `GET {base}/sync/status` reads the kiosk's state (the replicator's). */
  sync?: { status: () => MaybePromise<SyncStatus> };
}

/** Extra facts an adapter knows about a request. */
export interface RequestContext {
  /** The path the service is mounted at by a framework (Express's `req.baseUrl`), if any. */
  mountPath?: string;
}

/** The service: a fetch-style handler, plus its catalogue for in-process use. */
export interface PetService {
  (request: Request, context?: RequestContext): Promise<Response>;
  /**
   * The same answers, given at once (not as a promise) whenever every step could answer at
   * once, as getPet from memory or the JSON file does. A server that can write a Response
   * in the same turn as its request arrived saves a turn of the event loop: the Node
   * adapter calls this. Like the service, it never throws (unless the access logger does).
   */
  handle(request: Request, context?: RequestContext): MaybePromise<Response>;
  /** The in-process catalogue the handlers are built on. */
  catalogue: Catalogue;
  /** Calls of the deprecated getPet, per key. */
  deprecatedUses(): DeprecatedUse[];
  /** The keys in force: `service.keys.replace(keys)` changes them without a restart. */
  keys: KeyRing;
  /**
   * Ends the sync pulls waiting for animals now (each answers what it has) and lets later
   * ones answer at once: `serve()`'s `close` calls it before waiting for requests in flight.
   */
  stop(): void;
  /** The fleet view (`GET {base}/sync/kiosks`): each key in force that may sync; empty when the storage cannot sync. */
  kiosks(): Promise<SyncKiosk[]>;
}

/**
 * Creates the service. The result answers any Web Request under the base path (`/v1`),
 * plus `/healthz`, and never throws: every failure becomes an Error response.
 */
export const createPetService = (options: PetServiceOptions): PetService => {
  const basePath = normaliseBasePath(options.basePath ?? '/v1');
  const sha256 = options.sha256 ?? webCryptoSha256;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? {};
  const warn = logger.warn ?? ((message: string) => console.warn(message));
  const reportError = logger.error ?? ((message: string, error: unknown) => console.error(message, error));
  const cors = createCors(options.cors);
  const ResponseClass = options.fetchAPI?.Response ?? Response;
  const respondWithBody = createResponder(ResponseClass, reportError);
  const respondWithoutBody = createResponder(ResponseClass, reportError, { bodies: false });
  const deprecation = createDeprecationTracker(warn);
  const storageFailures = createStorageFailureLog(reportError, warn);
  const tagOf = createEntityTagger(sha256);
  // The texts of the animals this service served, shared by its list and getPet routes alone.
  const texts = createPetTexts();
  const { storage, docsAssets } = options;
  const keys = createKeyRing(options.keys, sha256, options.minimumKeyLength);
  const fleet = createFleet();
  const stopping = new AbortController();
  const { catalogue, creation, getPet, listPets, listPetsText } = createCatalogueParts({
    storage,
    sha256,
    now,
    ...(options.cursorSecret === undefined ? {} : { cursorSecret: options.cursorSecret }),
    ...(options.idempotency?.keyLifetimeSeconds === undefined
      ? {}
      : { idempotencyKeyLifetimeSeconds: options.idempotency.keyLifetimeSeconds }),
  });

  const health: Route = { operations: { GET: 'checkHealth' }, methods: { GET: healthRoute(storage, storageFailures) }, public: true };
  const router = createRouter(basePath, {
    pets: {
      operations: { GET: 'listPets', POST: 'createPet' },
      scopes: { GET: 'read', POST: 'create' },
      methods: {
        GET: listPetsRoute(listPets, tagOf, texts, listPetsText),
        POST: createPetRoute(creation, { idempotencyKeyRequired: options.idempotency?.required ?? false }),
      },
    },
    pet: { operations: { GET: 'getPet' }, scopes: { GET: 'read' }, methods: { GET: getPetRoute(getPet, tagOf, texts) }, deprecated: true },
    openApi: { operations: { GET: 'getOpenApiDocument' }, methods: { GET: openApiRoute() }, public: true },
    docs: { operations: { GET: 'getReference' }, methods: { GET: docsRoute(docsAssets) }, public: true },
    docsAsset: { methods: { GET: docsAssetRoute(docsAssets) }, public: true },
    health,
    more: syncRoutes(storage, { status: options.sync?.status, fleet, keys, stopping: stopping.signal }),
  });

  // Timings need sub-millisecond readings, which Date.now lacks: requests are timed by the
  // monotonic clock, unless a clock is given, which then dates and times alike.
  const timer = options.now ?? (() => performance.now());
  const startOf = options.now ? (state: RequestState) => state.time : timer;
  // A request's path, in order. Each step may answer or throw; the first turns throws into Error answers.
  const steps: Step[] = [
    respondStep({ logger, storageFailures, health, startOf, timer }),
    corsHeadersStep(cors),
    ...(options.requestIds ? [requestIdStep(createRequestIds())] : []),
    parseStep(router),
    preflightStep(cors, router.allowOf),
    authStep(keys.check),
    ...(options.rateLimit === undefined ? [] : [rateLimitStep(createRateLimiter(options.rateLimit))]),
    routeRulesStep({ deprecation, allowOf: router.allowOf }),
    scopeStep(),
    handlerStep,
  ];
  const run = composeSteps(steps);

  const handle = (request: Request, context?: RequestContext): MaybePromise<Response> => {
    const mountPath = context?.mountPath?.replace(/\/+$/, '') ?? '';
    const head = request.method === 'HEAD';
    return run({
      request,
      method: head ? 'GET' : request.method,
      respond: head ? respondWithoutBody : respondWithBody,
      mountPath,
      base: `${mountPath}${basePath}`,
      time: now(),
      path: '',
      search: '',
      headers: {},
    });
  };

  const service = ((request: Request, context?: RequestContext) => {
    try {
      return Promise.resolve(handle(request, context));
    } catch (error) {
      // Only a throwing access logger gets here.
      return Promise.reject(error);
    }
  }) as PetService;
  service.handle = handle;
  service.catalogue = catalogue;
  service.deprecatedUses = deprecation.uses;
  service.keys = keys;
  service.stop = () => stopping.abort();
  service.kiosks = async () => (storage.sync ? describeFleet(storage, { fleet, keys }) : []);
  return service;
};
