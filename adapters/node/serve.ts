/**
 * @module The standalone server: the service over `node:http` (its Requests and answers made
 * and written by `@whatwg-node`), with the limits a server on an open network needs.
 */
import { hash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { Response as ServerResponse } from '@whatwg-node/fetch';
import { type AccessLogEntry, createPetService, type PetService, type PetServiceOptions, type Sha256 } from '../../core/index.js';
import { closeStalledConnections } from './closeStalledConnections.js';
import { SHED_CODE } from './connectionRefusal.js';
import { createClientErrorListener } from './createClientErrorListener.js';
import { createMetricsRoute, METRICS_PATH } from './createMetricsRoute.js';
import type { PrometheusMetrics } from './createPrometheusMetrics.js';
import { createRequestListener, logPath } from './createRequestListener.js';
import { defaultMaxConnections } from './defaultMaxConnections.js';
import { findSwaggerUiAssets } from './findSwaggerUiAssets.js';
import { limitConnections } from './limitConnections.js';

/**
 * The standalone server's limits and their defaults (see `ServeOptions`): one source for
 * `serve()`, the CLI and its help. `maxConnections` follows this process's open-file limit,
 * read once, at start.
 */
export const SERVE_LIMIT_DEFAULTS: Readonly<Record<ServeLimit, number>> = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  writeTimeout: 10_000,
  maxConnections: defaultMaxConnections(),
  maxConnectionsPerAddress: 128,
  shedAfter: 1_000,
  maxPipelinedRequests: 16,
  shutdownTimeout: 10_000,
};

/** The client addresses exempt from the per-address cap by default: the machine's own, where a local reverse proxy and local clients connect from. */
export const DEFAULT_EXEMPT_ADDRESSES: readonly string[] = ['127.0.0.1', '::1'];

/** One of the standalone server's limits. */
export type ServeLimit =
  | 'headersTimeout'
  | 'requestTimeout'
  | 'keepAliveTimeout'
  | 'writeTimeout'
  | 'maxConnections'
  | 'maxConnectionsPerAddress'
  | 'shedAfter'
  | 'maxPipelinedRequests'
  | 'shutdownTimeout';

/** How to run the standalone server: the service's options plus where to listen. */
export interface ServeOptions extends PetServiceOptions {
  /** The interface to listen on; `127.0.0.1` by default, so nothing is exposed by accident. */
  host?: string;
  /** The port; 8080 by default, 0 for any free port. */
  port?: number;
  /** Milliseconds a client may take to send its headers before it is answered 408 and cut off; 10 s by default. */
  headersTimeout?: number;
  /** Milliseconds a client may take to send a whole request, body included; 30 s by default. */
  requestTimeout?: number;
  /** Milliseconds an idle keep-alive connection is kept open for the client's next request; 5 s by default. */
  keepAliveTimeout?: number;
  /**
   * Milliseconds a connection's unsent answers may go without moving (a client that asks and
   * does not read) before the connection is closed; 10 s by default.
   */
  writeTimeout?: number;
  /**
   * Connections open at once, from all clients. When a new one would pass it, the connection
   * that has gone longest without a complete request (an idle keep-alive, a slow client) is
   * closed to make room; when none may be, the new one is answered 503 `service_unavailable`
   * with `Retry-After` and closed. By default seven eighths of the open-file limit
   * (`ulimit -n`; 896 of the usual 1,024), at most 16,384: raise the two together.
   */
  maxConnections?: number;
  /**
   * Connections open at once from one client address that is not exempt (an IPv6 /64 counts
   * as one address); room is made and refusals answered as for `maxConnections`, among that
   * address's own connections. 128 by default.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Client addresses `maxConnectionsPerAddress` does not apply to: `127.0.0.1` and `::1` by
   * default, so local clients and a reverse proxy on the same machine share the total cap
   * only. Behind a proxy on another machine, name its address; `[]` caps every address.
   */
  exemptAddresses?: readonly string[];
  /**
   * Milliseconds a connection must have gone without a complete request (since it opened, or
   * since its last answer) before it may be closed to make room under a cap; 1 s by default.
   * Younger ones are sending their request: closing them would cut it, so a newcomer is
   * refused instead.
   */
  shedAfter?: number;
  /**
   * Requests one connection may send ahead of their answers (HTTP/1.1 pipelining). The next
   * one is answered 429 `rate_limited` with `Retry-After`, after the answers already owed,
   * and the connection is closed; whatever was sent behind it is dropped unread. 16 by default.
   */
  maxPipelinedRequests?: number;
  /** Milliseconds `close()` waits for in-flight requests before cutting them; 10 s by default. */
  shutdownTimeout?: number;
  /**
   * Prometheus metrics (see `createPrometheusMetrics`), served at `/metrics` to callers with
   * an API key; every answer is counted. Give the storage its `observeCommit` as `onCommit`.
   */
  metrics?: PrometheusMetrics;
  /**
   * Answers requests before the service sees them, for endpoints beside the interface (the
   * command line's test mode): resolves with the answer, or with `undefined` to hand the
   * request on. Its answers are logged and counted like the service's; whatever it throws
   * is a bare 500.
   */
  intercept?: (request: Request) => Promise<Response | undefined>;
}

/** A running server. */
export interface AnimalStoreServer {
  /** Where the operations live, such as `http://127.0.0.1:8080/v1`. */
  url: string;
  /** The port actually bound (useful with port 0). */
  port: number;
  /** The service, for in-process calls beside HTTP (`server.service.catalogue`). */
  service: PetService;
  /** The underlying `node:http` server. */
  server: Server;
  /** Stops accepting, lets in-flight requests finish, then closes the storage. */
  close(): Promise<void>;
}

/**
 * The bytes of a latin1 (`binary`) string: a digest asked for as such text and copied out costs less
 * than one asked for as a Buffer (on Node 20, 0.8 µs against 2 µs for 32 bytes), because
 * Node makes each Buffer it hands out through a slow path of its own.
 */
const latin1Bytes = (text: string): Uint8Array => {
  const bytes = new Uint8Array(text.length);
  for (let at = 0; at < text.length; at++) bytes[at] = text.charCodeAt(at);
  return bytes;
};

/** Node's native SHA-256: synchronous and off the threadpool, unlike Web Crypto's digest; it hashes text in place. */
export const nodeSha256: Sha256 = Object.assign((data: Uint8Array) => latin1Bytes(hash('sha256', data, 'binary')), {
  text: (text: string) => latin1Bytes(hash('sha256', text, 'binary')),
});

const formatOrigin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Starts the standalone server and resolves once it listens. */
export const serve = async (options: ServeOptions): Promise<AnimalStoreServer> => {
  const {
    host = '127.0.0.1',
    port = 8080,
    headersTimeout = SERVE_LIMIT_DEFAULTS.headersTimeout,
    requestTimeout = SERVE_LIMIT_DEFAULTS.requestTimeout,
    keepAliveTimeout = SERVE_LIMIT_DEFAULTS.keepAliveTimeout,
    writeTimeout = SERVE_LIMIT_DEFAULTS.writeTimeout,
    maxConnections = SERVE_LIMIT_DEFAULTS.maxConnections,
    maxConnectionsPerAddress = SERVE_LIMIT_DEFAULTS.maxConnectionsPerAddress,
    shedAfter = SERVE_LIMIT_DEFAULTS.shedAfter,
    maxPipelinedRequests = SERVE_LIMIT_DEFAULTS.maxPipelinedRequests,
    shutdownTimeout = SERVE_LIMIT_DEFAULTS.shutdownTimeout,
    exemptAddresses = DEFAULT_EXEMPT_ADDRESSES,
    metrics,
    intercept,
  } = options;
  const limits = {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    writeTimeout,
    maxConnections,
    maxConnectionsPerAddress,
    shedAfter,
    maxPipelinedRequests,
  };
  for (const [name, value] of Object.entries(limits)) {
    // A zero or a typo must not start a server that refuses everyone or never times out.
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TypeError(`serve(): ${name} must be a positive whole number, not ${String(value)}.`);
  }
  const notAnAddress = exemptAddresses.find((address) => isIP(address) === 0);
  if (notAnAddress !== undefined) {
    throw new TypeError(`serve(): exemptAddresses holds ${JSON.stringify(notAnAddress)}, which is not an IP address.`);
  }
  const access = options.logger?.access;
  const reportError = options.logger?.error ?? ((message: string, error: unknown) => console.error(message, error));
  // Every answer, the service's or this adapter's own, is logged and counted the same way.
  const record =
    access === undefined && metrics === undefined
      ? undefined
      : (entry: AccessLogEntry) => {
          metrics?.recordRequest(entry);
          access?.(entry);
        };
  // Answering with the server's own Response class lets it write each body in one call
  // instead of streaming it: about three times the throughput on small JSON answers.
  const fetchAPI = { Response: ServerResponse as typeof Response };
  const service = createPetService({
    sha256: nodeSha256,
    fetchAPI,
    ...options,
    // The reference page draws the whole interface when swagger-ui-dist is installed.
    ...(options.docsAssets === undefined ? { docsAssets: findSwaggerUiAssets() } : {}),
    logger: { ...options.logger, ...(record === undefined ? {} : { access: record }) },
  });
  metrics?.watch(service);
  // The access line of an answer made here, which never reaches the service (a failing log
  // must not cost the answer).
  const logAnswer = (method: string, path: string, status: number, milliseconds = 0, operation?: string) => {
    try {
      record?.({ method, path, status, milliseconds, operation });
    } catch (error) {
      reportError('the access log failed', error);
    }
  };
  const metricsRoute =
    metrics === undefined
      ? undefined
      : createMetricsRoute(metrics, { check: service.keys.check, Response: fetchAPI.Response, reportError });
  // Endpoints beside the interface answer first; only they pay for reading the path here.
  // Without them, answers the service makes at once are written at once (`handle`).
  const handle =
    metricsRoute === undefined && intercept === undefined
      ? service.handle
      : async (request: Request): Promise<Response> => {
          const started = performance.now();
          const path = new URL(request.url).pathname;
          const answer = (await metricsRoute?.(request, path)) ?? (await intercept?.(request));
          if (answer === undefined) return service(request);
          const operation = metricsRoute !== undefined && path === METRICS_PATH ? 'getMetrics' : undefined;
          logAnswer(request.method, path.slice(0, 200), answer.status, performance.now() - started, operation);
          return answer;
        };
  const requestListener = createRequestListener(handle, { maxPipelinedRequests, logAnswer, reportError });
  // Slow clients are cut off instead of holding sockets (and memory) forever.
  // Node checks those deadlines every connectionsCheckingInterval (30 s by default): check
  // often enough that a deadline means what it says.
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      keepAliveTimeout,
      connectionsCheckingInterval: Math.min(1_000, headersTimeout),
      // Checked by the listener, which answers with an Error body rather than Node's empty one.
      requireHostHeader: false,
    },
    requestListener,
  );
  // What node:http refuses before there is a request is answered with an Error body too.
  const answerClientError = createClientErrorListener((answer, req) =>
    logAnswer(req?.method ?? '-', req ? logPath(req.url) : '-', answer.status),
  );
  server.on('clientError', answerClientError);
  // Before any other connection listener: they are to see only the connections admitted.
  limitConnections(server, {
    maxConnections,
    maxConnectionsPerAddress,
    exemptAddresses,
    shedAfter,
    shed: (socket, phase) => {
      // A connection with no request on it (an idle keep-alive, one opened ahead of need, as
      // browsers do) is closed quietly, as HTTP allows at any time: its client connects again.
      // A 503 there could be taken for the answer to the request it sends next.
      if (phase === 'idle' || socket.bytesRead === 0) socket.destroy();
      else answerClientError(Object.assign(new Error('closed to make room'), { code: SHED_CODE }), socket);
    },
  });

  // An expectation other than 100-continue is served as if absent (RFC 9110 §10.1.1 allows
  // it), instead of Node's 417 with an empty body.
  server.on('checkExpectation', requestListener);
  closeStalledConnections(server, writeTimeout);

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
      // Waiting sync pulls answer now, so the stop need not wait out their waits.
      service.stop();
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
    server,
    close,
  };
};
