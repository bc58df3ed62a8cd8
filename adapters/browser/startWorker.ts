/** @module The page's side of a test app: registers the animal-store worker and waits until it controls the page. */
import { toSeedPets } from '../testing/toSeedPets.js';
import type { ServiceWorkerOptions } from './serveInServiceWorker.js';
import { askWorker } from './workerMessage.js';

/** How a page starts the worker. */
export interface StartWorkerOptions extends ServiceWorkerOptions {
  /** Where the worker script is served (`npx animal-store init-worker DIR` writes it); `/animal-store-worker.js` by default. */
  url?: string;
}

/** A running worker, as the page sees it. */
export interface StartedWorker {
  /** Goes back to the seed: every animal and Idempotency-Key created since is gone. */
  reset(): Promise<void>;
  /** Stops answering this page's requests (they go to the network) and unregisters the worker. */
  stop(): Promise<void>;
}

/** How often the page pokes the worker, so the browser does not stop it while idle (Chrome: after 30 s). */
const KEEP_ALIVE_MILLISECONDS = 20_000;

/** Resolves once `worker` is activated. */
const activated = (worker: ServiceWorker): Promise<void> =>
  new Promise((resolve, reject) => {
    const look = () => {
      if (worker.state === 'activated') resolve();
      else if (worker.state === 'redundant') reject(new Error('The animal-store worker failed to install; the browser console says why.'));
    };
    worker.addEventListener('statechange', look);
    look();
  });

/**
 * Registers the animal-store service worker with these options and resolves once it controls
 * this page, so no request to `{basePath}` made after it resolves can slip past the worker
 * (msw#1051: a hard reload leaves a page uncontrolled; the worker is asked to claim it).
 *
 * @example
 * const worker = await startWorker({ keys: ['test-key-0123456789'], seed: [{ name: 'Rex', categoryId: 1 }] });
 * await fetch('/v1/pets', { headers: { authorization: 'Bearer test-key-0123456789' } });
 */
export const startWorker = async ({ url = '/animal-store-worker.js', ...options }: StartWorkerOptions): Promise<StartedWorker> => {
  if (!('serviceWorker' in navigator)) {
    throw new Error(
      'This browser offers no service workers here: they need https, or http://localhost, and no private mode in some browsers.',
    );
  }
  // The worker checks again; checking here names the problem in the page, where it is made.
  toSeedPets(options.seed ?? []);
  const config = JSON.stringify({ ...options, basePath: options.basePath ?? '/v1' });
  const script = new URL(url, location.href);
  script.searchParams.set('config', config);
  const registration = await navigator.serviceWorker.register(script.href, { type: 'classic' });
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  if (!worker) throw new Error('The animal-store worker did not start.');
  await activated(worker);
  if (navigator.serviceWorker.controller?.scriptURL !== worker.scriptURL) {
    const controlled = new Promise<void>((resolve) => {
      const look = () => {
        if (navigator.serviceWorker.controller?.scriptURL !== worker.scriptURL) return;
        navigator.serviceWorker.removeEventListener('controllerchange', look);
        resolve();
      };
      navigator.serviceWorker.addEventListener('controllerchange', look);
      look();
    });
    await askWorker(worker, { type: 'claim' });
    await controlled;
  }
  const keepAlive = setInterval(() => void askWorker(worker, { type: 'ping' }).catch(() => {}), KEEP_ALIVE_MILLISECONDS);
  return {
    reset: async () => {
      await askWorker(worker, { type: 'reset' });
    },
    stop: async () => {
      clearInterval(keepAlive);
      await askWorker(worker, { type: 'stop' });
      await registration.unregister();
    },
  };
};
