/**
 * @module The service worker's side of a test app: answers requests under the base path with
 * the real service over memory or IndexedDB, and lets everything else pass through.
 */
import { errorResponse } from '../../core/http/errorAnswerOf.js';
import { createPetService, type PetService } from '../../core/index.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { openIndexedDbStorage } from '../../storage/indexedDb/openIndexedDbStorage.js';
import { toSeedPets } from '../testing/toSeedPets.js';
import { isUnder } from './isUnder.js';
import type { WorkerMessage, WorkerScope } from './WorkerScope.js';
import { answerMessage } from './workerMessage.js';

/** What the worker serves; `startWorker` passes it in the worker script's URL. */
export interface ServiceWorkerOptions {
  /** The API keys accepted as bearers (16 characters or more). */
  keys: readonly string[];
  /** Where the animals live: `memory` (gone when the browser stops the worker) or `indexeddb` (kept). */
  storage?: 'memory' | 'indexeddb';
  /** The animals to start from (and to go back to on `reset()`), in any shape `animal-store/testing` takes. */
  seed?: unknown;
  /** The path the service answers under, on the worker's origin; `/v1` by default. */
  basePath?: string;
  /** The IndexedDB database's name; `animal-store` by default. */
  databaseName?: string;
}

/** The worker's options from its script URL's `config` parameter (JSON), as `startWorker` writes them. */
export const optionsFromScriptUrl = (href: string): ServiceWorkerOptions => {
  const text = new URL(href).searchParams.get('config');
  if (text === null) throw new TypeError('The animal-store worker was registered without its config: register it with startWorker().');
  return JSON.parse(text) as ServiceWorkerOptions;
};

/**
 * Makes this service worker answer `{basePath}` (same origin) with the real service:
 * `storage: 'memory'` starts from the seed each time the browser starts the worker,
 * `'indexeddb'` keeps what was created. It takes over open pages at once (`skipWaiting`,
 * `clients.claim`); requests outside the base path, to other origins, and from pages that
 * called `stop()` are left to the network. Call it once, at the top of the worker script.
 */
export const serveInServiceWorker = (scope: WorkerScope, options: ServiceWorkerOptions): void => {
  const basePath = options.basePath ?? '/v1';
  const seed: Pet[] = toSeedPets(options.seed ?? []);
  const open = async () => {
    const storage =
      options.storage === 'indexeddb'
        ? await openIndexedDbStorage({ name: options.databaseName ?? 'animal-store', seed })
        : createMemoryStorage(seed);
    return { storage, service: createPetService({ storage, keys: options.keys, basePath }) };
  };
  let serving: Promise<{ storage: Awaited<ReturnType<typeof open>>['storage']; service: PetService }> | undefined;
  const ready = () => {
    serving ??= open().catch((error: unknown) => {
      serving = undefined;
      throw error;
    });
    return serving;
  };
  /** Pages that called `stop()`: their requests go to the network until they reload. */
  const stopped = new Set<string>();

  scope.addEventListener('install', () => void scope.skipWaiting());
  scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));
  scope.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== scope.location.origin || !isUnder(url.pathname, basePath) || stopped.has(event.clientId)) return;
    event.respondWith(ready().then(({ service }) => service(event.request), errorResponse));
  });
  scope.addEventListener('message', (event) => {
    const message = event.data as WorkerMessage;
    event.waitUntil(
      answerMessage(event.ports[0], async () => {
        if (message.type === 'claim') return scope.clients.claim();
        if (message.type === 'stop' && event.source) stopped.add(event.source.id);
        if (message.type === 'reset') {
          const { storage } = await ready();
          if ('reset' in storage) await storage.reset(seed);
          else {
            // A memory catalogue goes back to the seed by being made again.
            const old = serving;
            serving = undefined;
            await (await old)?.storage.close();
          }
        }
      }),
    );
  });
};
