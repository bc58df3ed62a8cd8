/**
 * @module animal-store/browser: the catalogue in the browser. An IndexedDB storage, the
 * service worker's side (`serveInServiceWorker`, which the bundled `animal-store-worker.js`
 * calls) and the page's side (`startWorker`), for test apps that fake their backend with the
 * real service, and for the kiosk in the browser (`animal-store serve --browser-kiosk`). No
 * Node import.
 */
export { createMemoryStorage, type MemoryStorage } from '../storage/createMemoryStorage.js';
export { type IndexedDbStorage, type IndexedDbStorageOptions, openIndexedDbStorage } from '../storage/indexedDb/openIndexedDbStorage.js';
export { optionsFromScriptUrl, type ServiceWorkerOptions, serveInServiceWorker } from './browser/serveInServiceWorker.js';
export { type StartedWorker, type StartWorkerOptions, startWorker } from './browser/startWorker.js';
export type { WorkerExtendableEvent, WorkerFetchEvent, WorkerMessageEvent, WorkerScope } from './browser/WorkerScope.js';
