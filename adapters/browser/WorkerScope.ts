/**
 * @module The few service worker APIs animal-store uses, typed here so the package needs no
 * `WebWorker` lib (which conflicts with `DOM`) in its users' tsconfig.
 */

/** A service worker's fetch event. */
export interface WorkerFetchEvent extends Event {
  readonly request: Request;
  /** The id of the page (client) that made the request; '' for a navigation. */
  readonly clientId: string;
  respondWith(response: Response | Promise<Response>): void;
  waitUntil(promise: Promise<unknown>): void;
}

/** An event the worker may extend (install, activate). */
export interface WorkerExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}

/** A message to the worker, from a page. */
export interface WorkerMessageEvent extends Event {
  readonly data: unknown;
  readonly ports: readonly MessagePort[];
  readonly source: { readonly id: string } | null;
  waitUntil(promise: Promise<unknown>): void;
}

/** The service worker's global scope (`self` in the worker script). */
export interface WorkerScope {
  readonly location: { readonly href: string; readonly origin: string };
  readonly registration: { readonly scope: string };
  readonly clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'fetch', listener: (event: WorkerFetchEvent) => void): void;
  addEventListener(type: 'install' | 'activate', listener: (event: WorkerExtendableEvent) => void): void;
  addEventListener(type: 'message', listener: (event: WorkerMessageEvent) => void): void;
}

/** A message startWorker and the kiosk page send to a worker; the answer goes back on the message's port. */
export type WorkerMessage =
  | { type: 'reset' }
  | { type: 'stop' }
  | { type: 'claim' }
  | { type: 'ping' }
  | { type: 'provision'; key: string };

/** This worker's global scope, typed: what a worker script hands to `serveInServiceWorker` or `serveKiosk`. */
export const currentWorkerScope = (): WorkerScope => globalThis as unknown as WorkerScope;
