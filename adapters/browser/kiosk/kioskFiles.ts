/** @module The kiosk web app's files, as the hub serves them under /kiosk/ and the worker caches them. */

/** The path the kiosk app lives under, on the hub's origin; also its service worker's scope. */
export const KIOSK_PATH = '/kiosk/';

/** The path the page's API lives under, answered by the worker. */
export const KIOSK_API_BASE = '/kiosk/v1';

/** The worker script's file name (under /kiosk/). */
export const KIOSK_WORKER_FILE = 'worker.js';

/** The app's files and their types, by name under /kiosk/ ('' is the page itself, index.html). */
export const KIOSK_APP_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'boot.js': 'text/javascript; charset=utf-8',
  'kiosk.js': 'text/javascript; charset=utf-8',
  'describeFailure.js': 'text/javascript; charset=utf-8',
  'animal-store-client.js': 'text/javascript; charset=utf-8',
  'kiosk.css': 'text/css; charset=utf-8',
  'manifest.webmanifest': 'application/manifest+json',
  'icon.svg': 'image/svg+xml',
  [KIOSK_WORKER_FILE]: 'text/javascript; charset=utf-8',
};

/** What the worker keeps in its cache for offline loads: the page (as `/kiosk/`) and what it loads. */
export const KIOSK_CACHED_FILES = [
  '',
  ...Object.keys(KIOSK_APP_FILES).filter((name) => name !== KIOSK_WORKER_FILE && name !== 'index.html'),
];
