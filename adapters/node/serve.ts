/** @module The standalone server: the service on `@whatwg-node/server` over `node:http`. */
import { hash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response as ServerResponse } from '@whatwg-node/fetch';
import { createServerAdapter } from '@whatwg-node/server';
import { createPetService, type PetService, type PetServiceOptions, type Sha256 } from '../../core/index.js';

/** How to run the standalone server: the service's options plus where to listen. */
export interface ServeOptions extends PetServiceOptions {
  /** The interface to listen on; `127.0.0.1` by default, so nothing is exposed by accident. */
  host?: string;
  /** The port; 8080 by default, 0 for any free port. */
  port?: number;
  /** Milliseconds a client may take to send its headers before it is cut off; 10 s by default. */
  headersTimeout?: number;
  /** Milliseconds a client may take to send a whole request; 30 s by default. */
  requestTimeout?: number;
  /** Milliseconds `close()` waits for in-flight requests before cutting them; 10 s by default. */
  shutdownTimeout?: number;
}

/** A running server. */
export interface AnimalStoreServer {
  /** Where the operations live, such as `http://127.0.0.1:8080/v1`. */
  url: string;
  /** The port actually bound (useful with port 0). */
  port: number;
  /** The service, for in-process calls beside HTTP (`server.service.catalogue`). */
  service: PetService;
  /** @deprecated Use `service`. */
  store: PetService;
  /** The underlying `node:http` server. */
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then closes the storage. */
  close(): Promise<void>;
}

/** Node's native SHA-256: synchronous and off the threadpool, unlike Web Crypto's digest. */
export const nodeSha256: Sha256 = (data) => hash('sha256', data, 'buffer');

const formatOrigin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Starts the standalone server and resolves once it listens. */
export const serve = async (options: ServeOptions): Promise<AnimalStoreServer> => {
  const { host = '127.0.0.1', port = 8080, headersTimeout = 10_000, requestTimeout = 30_000, shutdownTimeout = 10_000 } = options;
  // Answering with the server's own Response class lets it write each body in one call
  // instead of streaming it: about three times the throughput on small JSON answers.
  const service = createPetService({ sha256: nodeSha256, fetchAPI: { Response: ServerResponse as typeof Response }, ...options });
  const adapter = createServerAdapter((request: Request) => service(request));
  // Slow clients are cut off instead of holding sockets (and memory) forever.
  // Node checks those deadlines every connectionsCheckingInterval (30 s by default): check
  // often enough that a deadline means what it says.
  const server = createServer(
    { headersTimeout, requestTimeout, keepAliveTimeout: 5_000, connectionsCheckingInterval: Math.min(1_000, headersTimeout) },
    adapter,
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive sockets would hold close() open: drop idle ones now and as they go idle.
      server.closeIdleConnections();
      const sweeper = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), shutdownTimeout);
      try {
        await stopped;
      } finally {
        clearInterval(sweeper);
        clearTimeout(deadline);
      }
      await options.storage.close();
    })());

  return {
    url: `${formatOrigin(host, bound)}${(options.basePath ?? '/v1').replace(/\/+$/, '')}`,
    port: bound,
    service,
    store: service,
    server,
    close,
  };
};
