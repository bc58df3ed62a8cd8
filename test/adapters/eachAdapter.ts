/**
 * @module Runs one HTTP suite on every adapter, the way whatwg-node's test-server.ts runs
 * one suite on every server: each adapter starts a fresh service over fresh memory storage
 * and is spoken to through one `request(path)` function, path relative to its mount.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, beforeEach, describe } from 'vitest';
import { expressMiddleware } from '../../adapters/express.js';
import { createFetchHandler } from '../../adapters/fetch.js';
import { serve } from '../../adapters/node.js';
import type { PetServiceOptions } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';

export const KEY = 'adapter-suite-key';

/** A running adapter. */
export interface RunningAdapter {
  /** Where the service is mounted: `''` at the root, `/catalogue` in the Express app. */
  mountPath: string;
  /** Sends a request to a path under the mount (`/v1/pets`); absolute paths from links work too via `requestUrl`. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Sends a request to a path exactly as a link gives it (mount path included). */
  requestUrl(pathFromOrigin: string, init?: RequestInit): Promise<Response>;
  /** Requests to the host app beside the service, for adapters that have one. */
  app?: { request(path: string, init?: RequestInit): Promise<Response> };
  close(): Promise<void>;
}

/** How to start an adapter around the service's options. */
export interface AdapterImplementation {
  name: string;
  start(options: PetServiceOptions): Promise<RunningAdapter>;
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

const overHttp = (origin: string, mountPath: string) => ({
  request: (path: string, init?: RequestInit) => fetch(`${origin}${mountPath}${path}`, init),
  requestUrl: (pathFromOrigin: string, init?: RequestInit) => fetch(`${origin}${pathFromOrigin}`, init),
});

/** The adapters that need a socket: the servers, and a fetch handler behind a node:http bridge. */
export const overSockets: AdapterImplementation[] = [
  {
    name: 'standalone server (animal-store/node serve, port 0)',
    async start(options) {
      const server = await serve({ ...options, port: 0 });
      return { mountPath: '', ...overHttp(new URL(server.url).origin, ''), close: () => server.close() };
    },
  },
  {
    name: 'Express 5 mount at /catalogue, beside express.json() and other routes',
    async start(options) {
      const app = express();
      // A host app as people write them: a global JSON parser and routes of its own.
      app.use(express.json());
      app.get('/hello', (_req, res) => void res.json({ hello: 'world' }));
      app.post('/echo', (req, res) => void res.json({ received: req.body as unknown }));
      app.use('/catalogue', expressMiddleware(options));
      app.use((_req, res) => void res.status(404).type('text/plain').send('app 404'));
      const server = createServer(app);
      const origin = await listen(server);
      return {
        mountPath: '/catalogue',
        ...overHttp(origin, '/catalogue'),
        app: { request: (path, init) => fetch(`${origin}${path}`, init) },
        close: () => closeServer(server),
      };
    },
  },
  {
    name: 'fetch handler (animal-store/fetch) with mountPath, behind a node:http bridge',
    async start(options) {
      const handler = createFetchHandler({ ...options, mountPath: '/api/store' });
      const { createServerAdapter } = await import('@whatwg-node/server');
      const server = createServer(createServerAdapter(handler.fetch));
      const origin = await listen(server);
      return { mountPath: '/api/store', ...overHttp(origin, '/api/store'), close: () => closeServer(server) };
    },
  },
];

/** The adapters answered in process, without a socket. */
export const inProcess: AdapterImplementation[] = [
  {
    name: 'fetch handler (animal-store/fetch), called directly',
    async start(options) {
      const handler = createFetchHandler(options);
      const origin = 'http://worker.test';
      return {
        mountPath: '',
        request: (path, init) => handler.fetch(new Request(`${origin}${path}`, init)),
        requestUrl: (path, init) => handler.fetch(new Request(`${origin}${path}`, init)),
        close: async () => {},
      };
    },
  },
];

/**
 * Declares the suite once per adapter. `body` receives a getter for the running adapter,
 * started fresh (empty catalogue, one key) before each test and closed after it.
 */
export const describeEachAdapter = (
  implementations: AdapterImplementation[],
  title: string,
  body: (adapter: () => RunningAdapter) => void,
) => {
  for (const implementation of implementations) {
    describe(`${title} — ${implementation.name}`, () => {
      let running: RunningAdapter | undefined;
      beforeEach(async () => {
        running = await implementation.start({
          storage: createMemoryStorage(),
          keys: [KEY],
          logger: { warn: () => {} },
        });
      });
      afterEach(async () => {
        await running?.close();
        running = undefined;
      });
      body(() => {
        if (!running) throw new Error('adapter not started');
        return running;
      });
    });
  }
};
