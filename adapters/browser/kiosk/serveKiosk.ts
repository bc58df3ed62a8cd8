/**
 * @module The kiosk's service worker: answers the page's API (/kiosk/v1) from IndexedDB with
 * the real service, syncs with the hub of the same origin, and keeps the app's files for
 * offline loads.
 */
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';
import { errorResponse } from '../../../core/http/errorAnswerOf.js';
import { createPetService, type PetService } from '../../../core/index.js';
import { type IndexedDbStorage, openIndexedDbStorage } from '../../../storage/indexedDb/openIndexedDbStorage.js';
import { type Replicator, startReplicator } from '../../sync/startReplicator.js';
import { isUnder } from '../isUnder.js';
import type { WorkerFetchEvent, WorkerMessage, WorkerScope } from '../WorkerScope.js';
import { answerMessage } from '../workerMessage.js';
import { KIOSK_API_BASE, KIOSK_CACHED_FILES, KIOSK_PATH } from './kioskFiles.js';
import { readKioskKey, writeKioskKey } from './kioskSettings.js';

/** The cache holding the app's files; a new name when their set changes. */
const CACHE = 'animal-store-kiosk-app-1';
/** The kiosk's catalogue in IndexedDB. */
const DATABASE = 'animal-store-kiosk';
/** Seconds between rounds while the worker runs; a page's requests wake it for one more. */
const SYNC_SECONDS = 2;
/** How long the page's files may take from the hub before the cached ones answer. */
const NETWORK_WAIT_MILLISECONDS = 3_000;

/** A provisioned kiosk: its key, catalogue, service and replicator. */
interface Kiosk {
  key: string;
  storage: IndexedDbStorage;
  service: PetService;
  replicator: Replicator;
  /** When the last round was asked for, by `performance.now()`. */
  nudged: number;
}

/** Answers `request` from the hub, or from the cache when the hub does not answer in time (updating the cache when it does). */
const networkThenCache = async (request: Request, cacheKey: string): Promise<Response> => {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request, { signal: AbortSignal.timeout(NETWORK_WAIT_MILLISECONDS), cache: 'no-store' });
    if (response.ok) await cache.put(cacheKey, response.clone());
    return response;
  } catch (error) {
    const cached = await cache.match(cacheKey);
    if (cached) return cached;
    throw error;
  }
};

/**
 * Makes this service worker the kiosk of the hub at `{origin}{hubBase}`. The key arrives
 * once from the page (`provision`) and is kept in IndexedDB; from then on `/kiosk/v1` is
 * the service over the kiosk's IndexedDB catalogue with that key as its one bearer, and
 * every request the page makes (a list, the status it asks for every few seconds) also
 * wakes a sync round, since a browser stops idle workers and their timers with them.
 */
export const serveKiosk = (scope: WorkerScope, hubBase: string): void => {
  const origin = scope.location.origin;
  const apiBase = `${origin}${KIOSK_API_BASE}`;
  let kiosk: Promise<Kiosk | undefined> | undefined;

  const start = async (): Promise<Kiosk | undefined> => {
    const key = await readKioskKey();
    if (key === undefined) return undefined;
    const storage = await openIndexedDbStorage({ name: DATABASE });
    const replicator = await startReplicator({ storage, hub: `${origin}${hubBase}`, key, intervalSeconds: SYNC_SECONDS });
    // The replicator's storage: a create finding no leased id waits for the lease, and says why when refused.
    const service = createPetService({
      storage: replicator.storage,
      keys: [key],
      basePath: KIOSK_API_BASE,
      sync: { status: replicator.status },
    });
    return { key, storage, service, replicator, nudged: performance.now() };
  };
  const running = () => {
    kiosk ??= start().catch((error: unknown) => {
      kiosk = undefined;
      throw error;
    });
    return kiosk;
  };
  const stop = async () => {
    const old = await kiosk?.catch(() => undefined);
    kiosk = undefined;
    await old?.replicator.stop();
    await old?.storage.close();
  };

  /** Runs a sync round unless one was asked for within the last interval. */
  const nudge = (running: Kiosk, force = false): Promise<void> => {
    const now = performance.now();
    if (!force && now - running.nudged < SYNC_SECONDS * 1000) return Promise.resolve();
    running.nudged = now;
    return running.replicator.syncNow();
  };

  const answerApi = async (event: WorkerFetchEvent): Promise<Response> => {
    const current = await running();
    if (current === undefined) {
      return errorResponse(
        new AnimalStoreError('unauthorized', 'This kiosk has no key yet: open /kiosk/#key=KEY once on this device to set it up.'),
      );
    }
    const response = await current.service(event.request);
    // A create goes up at once; anything else may wake a round that is due.
    event.waitUntil(nudge(current, event.request.method === 'POST' && response.status === 201));
    return response;
  };

  /** The page's settings, made here from the key the worker holds: the key never travels to the hub. */
  const answerConfig = async (): Promise<Response> => {
    const current = await running();
    if (current === undefined)
      return new Response('{"provisioned":false}', { status: 404, headers: { 'content-type': 'application/json' } });
    const config = { apiBase, apiKey: current.key, pageSize: 10, refreshSeconds: 5, sync: true };
    return new Response(JSON.stringify(config), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
  };

  scope.addEventListener('install', (event) => {
    event.waitUntil(
      caches
        .open(CACHE)
        .then((cache) => cache.addAll(KIOSK_CACHED_FILES.map((name) => `${KIOSK_PATH}${name}`)))
        .then(() => scope.skipWaiting()),
    );
  });
  scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));
  scope.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== origin) return;
    if (isUnder(url.pathname, KIOSK_API_BASE)) {
      event.respondWith(answerApi(event).catch((error: unknown) => errorResponse(error)));
    } else if (url.pathname === `${KIOSK_PATH}config.json`) {
      event.respondWith(answerConfig().catch((error: unknown) => errorResponse(error)));
    } else if (event.request.method === 'GET' && isUnder(url.pathname, KIOSK_PATH.slice(0, -1))) {
      const name = url.pathname.slice(KIOSK_PATH.length);
      const cacheKey = `${KIOSK_PATH}${name === 'index.html' ? '' : name}`;
      event.respondWith(networkThenCache(event.request, cacheKey));
      event.waitUntil(running().then((current) => current && nudge(current)));
    }
  });
  scope.addEventListener('message', (event) => {
    const message = event.data as WorkerMessage;
    event.waitUntil(
      answerMessage(event.ports[0], async () => {
        if (message.type === 'claim') return scope.clients.claim();
        if (message.type === 'provision') {
          if (typeof message.key !== 'string' || !/^[A-Za-z0-9\-._~+/]{16,}=*$/.test(message.key)) {
            throw new Error('The key in the address is not a key: 16 or more letters, digits and -._~+/.');
          }
          await writeKioskKey(message.key);
          await stop();
        }
        const current = await running();
        // The answer does not wait for the round: with the hub away, that takes its timeout.
        if (current !== undefined) void nudge(current);
        return { provisioned: current !== undefined };
      }),
    );
  });
};
