/**
 * @module The test apps' worker script (bundled to dist/browser/animal-store-worker.js, which
 * `animal-store init-worker DIR` copies): its options come in its URL, as startWorker registers it.
 */
import { optionsFromScriptUrl, serveInServiceWorker } from './serveInServiceWorker.js';
import { currentWorkerScope } from './WorkerScope.js';

serveInServiceWorker(currentWorkerScope(), optionsFromScriptUrl(currentWorkerScope().location.href));
