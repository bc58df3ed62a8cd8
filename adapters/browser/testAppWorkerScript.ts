/**
 * @module The test apps' worker script (bundled to dist/browser/animal-store-worker.js, which
 * `animal-store init-worker DIR` copies): its options come in its URL, as startWorker registers it.
 */
import { optionsFromScriptUrl, serveInServiceWorker } from './serveInServiceWorker.js';
import type { WorkerScope } from './WorkerScope.js';

const scope = globalThis as unknown as WorkerScope;
serveInServiceWorker(scope, optionsFromScriptUrl(scope.location.href));
