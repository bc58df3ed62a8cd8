/**
 * @module The kiosk's worker script (bundled to dist/browser/kiosk/worker.js): the hub's
 * base path comes in the script's URL, as the kiosk page registers it.
 */
import { currentWorkerScope } from '../WorkerScope.js';
import { serveKiosk } from './serveKiosk.js';

serveKiosk(currentWorkerScope(), new URL(currentWorkerScope().location.href).searchParams.get('hub') ?? '/v1');
