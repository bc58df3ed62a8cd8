/**
 * @module The kiosk's worker script (bundled to dist/browser/kiosk/worker.js): the hub's
 * base path comes in the script's URL, as the kiosk page registers it.
 */
import type { WorkerScope } from '../WorkerScope.js';
import { serveKiosk } from './serveKiosk.js';

const scope = globalThis as unknown as WorkerScope;
serveKiosk(scope, new URL(scope.location.href).searchParams.get('hub') ?? '/v1');
