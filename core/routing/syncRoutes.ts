/** @module The sync endpoints: a hub leases ids, takes pushes and serves its feed; a kiosk shows its state. */

import { AnimalStoreError } from '../AnimalStoreError.js';
import { type Caller, WITHDRAWN_REMOVED } from '../auth/createBearerCheck.js';
import type { KeyRing } from '../auth/createKeyRing.js';
import { readJsonBody } from '../http/readJsonBody.js';
import type { MaybePromise } from '../MaybePromise.js';
import type { PetStorage } from '../PetStorage.js';
import type { Pet } from '../schemas/Pet.js';
import { BEHIND_COUNTED_MAX, type SyncKiosk, SyncLeaseRequest, SyncPullQuery, SyncPush, type SyncStatus } from '../schemas/SyncSchemas.js';
import type { Fleet } from '../sync/createFleet.js';
import type { SyncStorage } from '../sync/SyncStorage.js';
import { watchArrivals } from '../sync/watchArrivals.js';
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

/** The calling key; every sync route needs one (they are never public). */
const callerOf = (caller: Caller | undefined): Caller => {
  if (caller === undefined) throw new AnimalStoreError('unauthorized', 'The sync endpoints need an API key.');
  return caller;
};

/** What the sync routes share beside the storage. */
export interface SyncRouteOptions {
  /** A kiosk's state (the replicator's), for `GET {base}/sync/status`. */
  status?: (() => MaybePromise<SyncStatus>) | undefined;
  /** The hub's memory of its sync keys. */
  fleet: Fleet;
  /** The keys in force, for the fleet view. */
  keys: KeyRing;
  /** Aborted when the service stops: waiting pulls answer at once. */
  stopping: AbortSignal;
}

/** POST {base}/sync/leases: a new block of ids for the calling key, durable before the answer. */
const leaseRoute =
  (storage: PetStorage, { fleet }: SyncRouteOptions): RouteHandler =>
  async ({ request, respond, headers, caller, time }) => {
    const sync = hubStorage(storage);
    const who = callerOf(caller);
    // No body at all is as good as `{}`: there is nothing to say.
    const empty = request.body === null || request.headers.get('content-length') === '0';
    validate(SyncLeaseRequest, empty ? {} : await readJsonBody(request), { what: 'The lease request', rootName: 'body', knownKeys: {} });
    const block = await sync.lease(who.keyFingerprint, LEASE_SIZE);
    fleet.leased(who, time);
    return respond.json(201, block, headers);
  };

/** POST {base}/sync/push: stores a kiosk's animals (all or none), idempotently. */
const pushRoute =
  (storage: PetStorage, { fleet }: SyncRouteOptions): RouteHandler =>
  async ({ request, respond, headers, caller, time }) => {
    const sync = hubStorage(storage);
    const who = callerOf(caller);
    const { pets } = validate(SyncPush, await readJsonBody(request), { what: 'The push', rootName: 'body' });
    const result = await sync.store(who.keyFingerprint, pets);
    fleet.pushed(who, time, result.stored);
    return respond.json(200, result, headers);
  };

/**
 * GET {base}/sync/pull: the animals after a checkpoint, in arrival order, and the next
 * checkpoint. With `wait`, a pull that finds nothing waits for the next arrival (the
 * storage's `onArrival`, never a timer polling it), at most `wait` seconds; it ends early,
 * answering what it has, when the server stops or the client goes, and with a 401 when its
 * key is withdrawn.
 */
const pullRoute =
  (storage: PetStorage, { fleet, stopping }: SyncRouteOptions): RouteHandler =>
  async ({ request, search, respond, headers, caller }) => {
    const sync = hubStorage(storage);
    const who = callerOf(caller);
    const { checkpoint, limit, wait } = validate(SyncPullQuery, readNumericQuery(new URLSearchParams(search)), {
      what: 'The pull query',
      rootName: 'query',
      knownKeys: SyncPullQuery.entries,
    });
    const answer = (pets: Pet[]) => {
      const next = pets.at(-1)?.id ?? checkpoint;
      fleet.pulled(who, Date.now(), next);
      return respond.json(200, { pets, checkpoint: next }, headers);
    };
    if (wait === 0 || sync.onArrival === undefined) return answer(await storage.list({ after: checkpoint, limit }));
    const ends = Date.now() + wait * 1000;
    // Listening starts before the first look, so an animal arriving in between is not missed.
    const watch = watchArrivals(sync.onArrival, [who.withdrawn, stopping, request.signal]);
    try {
      for (;;) {
        const pets = await storage.list({ after: checkpoint, limit });
        if (pets.length > 0) return answer(pets);
        const outcome = await watch.next(ends - Date.now());
        if (outcome === 'arrived') continue;
        if (who.withdrawn.aborted && who.withdrawn.reason === WITHDRAWN_REMOVED) {
          throw new AnimalStoreError('unauthorized', 'The API key was withdrawn while the pull waited.', {
            headers: { 'www-authenticate': 'Bearer realm="animal-store", error="invalid_token"' },
          });
        }
        return answer(await storage.list({ after: checkpoint, limit }));
      }
    } finally {
      watch.close();
    }
  };

/** GET {base}/sync/status: a kiosk's state, or a 404 on a server that syncs with no hub. */
const statusRoute =
  (status: (() => MaybePromise<SyncStatus>) | undefined): RouteHandler =>
  async ({ respond, headers }) => {
    if (status === undefined) throw new AnimalStoreError('not_found', 'This server syncs with no hub, so it has no sync status.');
    return respond.json(200, await status(), { ...headers, 'cache-control': 'no-store' });
  };

/** ISO 8601 of a time, or null. */
const iso = (time: number | undefined) => (time === undefined ? null : new Date(time).toISOString());

/** The fleet view: every key in force that may sync, with what this hub knows of it. */
export const describeFleet = async (
  storage: PetStorage,
  { fleet, keys }: Pick<SyncRouteOptions, 'fleet' | 'keys'>,
): Promise<SyncKiosk[]> => {
  const sync = hubStorage(storage);
  const kiosks: SyncKiosk[] = [];
  for (const caller of await keys.callers()) {
    if (!caller.scopes.includes('sync')) continue;
    const activity = fleet.activityOf(caller.keyFingerprint);
    const leases = (await sync.leasesOf?.(caller.keyFingerprint)) ?? { blocks: 0, unused: 0 };
    const behind =
      activity?.checkpoint === undefined ? null : (await storage.list({ after: activity.checkpoint, limit: BEHIND_COUNTED_MAX })).length;
    kiosks.push({
      name: caller.name,
      lastLease: iso(activity?.lastLease),
      lastPush: iso(activity?.lastPush),
      lastPull: iso(activity?.lastPull),
      pushed: activity?.pushed ?? 0,
      blocks: leases.blocks,
      unusedBlocks: leases.unused,
      behind,
    });
  }
  return kiosks;
};

/** GET {base}/sync/kiosks: the fleet view, for keys with every scope. */
const kiosksRoute =
  (storage: PetStorage, options: SyncRouteOptions): RouteHandler =>
  async ({ respond, headers }) =>
    respond.json(200, { kiosks: await describeFleet(storage, options) }, { ...headers, 'cache-control': 'no-store' });

/** The sync routes, by their path under the base path. */
export const syncRoutes = (storage: PetStorage, options: SyncRouteOptions): Record<string, Route> => ({
  'sync/leases': { operations: { POST: 'leaseIds' }, scopes: { POST: 'sync' }, methods: { POST: leaseRoute(storage, options) } },
  'sync/push': { operations: { POST: 'pushPets' }, scopes: { POST: 'sync' }, methods: { POST: pushRoute(storage, options) } },
  'sync/pull': { operations: { GET: 'pullPets' }, scopes: { GET: 'sync' }, methods: { GET: pullRoute(storage, options) } },
  'sync/status': { operations: { GET: 'getSyncStatus' }, scopes: { GET: 'read' }, methods: { GET: statusRoute(options.status) } },
  'sync/kiosks': { operations: { GET: 'listKiosks' }, scopes: { GET: 'every' }, methods: { GET: kiosksRoute(storage, options) } },
});
