/** @module The sync endpoints: a hub leases ids, takes pushes and serves its feed; a kiosk shows its state. */
import { AnimalStoreError } from '../AnimalStoreError.js';
import { readJsonBody } from '../http/readJsonBody.js';
import type { MaybePromise } from '../MaybePromise.js';
import type { PetStorage } from '../PetStorage.js';
import { SyncLeaseRequest, SyncPullQuery, SyncPush, type SyncStatus } from '../schemas/SyncSchemas.js';
import type { SyncStorage } from '../sync/SyncStorage.js';
import { validate } from '../validate.js';
import type { Route, RouteHandler } from './createRouter.js';

/** How many ids one lease gives: enough for a busy kiosk's day offline, few enough to waste when an answer is lost. */
export const LEASE_SIZE = 1000;

/** Reads a query whose digit-only values are numbers, refusing a parameter given twice. */
const readNumericQuery = (searchParams: URLSearchParams): Record<string, unknown> => {
  const query: Record<string, unknown> = {};
  for (const [name, value] of searchParams) {
    const path = name.length > 32 ? `${name.slice(0, 32)}…` : name;
    if (Object.hasOwn(query, name)) {
      throw new AnimalStoreError('validation_failed', `The query parameter ${path} is given more than once; give it once.`, {
        details: [{ path, message: 'must be given at most once' }],
      });
    }
    query[name] = /^[0-9]{1,16}$/.test(value) ? Number(value) : value;
  }
  return query;
};

/** The hub's storage, or a 404 saying this server's storage cannot sync. */
const hubStorage = (storage: PetStorage): SyncStorage => {
  if (storage.sync) return storage.sync;
  throw new AnimalStoreError('not_found', 'This server’s storage cannot sync, so it cannot be a hub.');
};

/** The scope of the calling key; every sync route needs one (they are never public). */
const scopeOf = (caller: { keyFingerprint: string } | undefined): string => {
  if (caller === undefined) throw new AnimalStoreError('unauthorized', 'The sync endpoints need an API key.');
  return caller.keyFingerprint;
};

/** POST {base}/sync/leases: a new block of ids for the calling key, durable before the answer. */
const leaseRoute =
  (storage: PetStorage): RouteHandler =>
  async ({ request, respond, headers, caller }) => {
    const sync = hubStorage(storage);
    // No body at all is as good as `{}`: there is nothing to say.
    const empty = request.body === null || request.headers.get('content-length') === '0';
    validate(SyncLeaseRequest, empty ? {} : await readJsonBody(request), { what: 'The lease request', rootName: 'body', knownKeys: {} });
    const block = await sync.lease(scopeOf(caller), LEASE_SIZE);
    return respond.json(201, block, headers);
  };

/** POST {base}/sync/push: stores a kiosk's animals (all or none), idempotently. */
const pushRoute =
  (storage: PetStorage): RouteHandler =>
  async ({ request, respond, headers, caller }) => {
    const sync = hubStorage(storage);
    const { pets } = validate(SyncPush, await readJsonBody(request), { what: 'The push', rootName: 'body' });
    const result = await sync.store(scopeOf(caller), pets);
    return respond.json(200, result, headers);
  };

/** GET {base}/sync/pull: the animals after a checkpoint, in arrival order, and the next checkpoint. */
const pullRoute =
  (storage: PetStorage): RouteHandler =>
  async ({ search, respond, headers, caller }) => {
    hubStorage(storage);
    scopeOf(caller);
    const { checkpoint, limit } = validate(SyncPullQuery, readNumericQuery(new URLSearchParams(search)), {
      what: 'The pull query',
      rootName: 'query',
      knownKeys: SyncPullQuery.entries,
    });
    const pets = await storage.list({ after: checkpoint, limit });
    return respond.json(200, { pets, checkpoint: pets.at(-1)?.id ?? checkpoint }, headers);
  };

/** GET {base}/sync/status: a kiosk's state, or a 404 on a server that syncs with no hub. */
const statusRoute =
  (status: (() => MaybePromise<SyncStatus>) | undefined): RouteHandler =>
  async ({ respond, headers }) => {
    if (status === undefined) throw new AnimalStoreError('not_found', 'This server syncs with no hub, so it has no sync status.');
    return respond.json(200, await status(), { ...headers, 'cache-control': 'no-store' });
  };

/** The sync routes, by their path under the base path. */
export const syncRoutes = (storage: PetStorage, status?: () => MaybePromise<SyncStatus>): Record<string, Route> => ({
  'sync/leases': { operations: { POST: 'leaseIds' }, scopes: { POST: 'sync' }, methods: { POST: leaseRoute(storage) } },
  'sync/push': { operations: { POST: 'pushPets' }, scopes: { POST: 'sync' }, methods: { POST: pushRoute(storage) } },
  'sync/pull': { operations: { GET: 'pullPets' }, scopes: { GET: 'sync' }, methods: { GET: pullRoute(storage) } },
  'sync/status': { operations: { GET: 'getSyncStatus' }, scopes: { GET: 'read' }, methods: { GET: statusRoute(status) } },
});
