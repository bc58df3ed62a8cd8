/**
 * @module animal-store/express: mounts the service on an Express 5 app at any path.
 *
 * `app.use('/catalogue', expressMiddleware({ storage, keys }))` serves `/catalogue/v1/pets`, with
 * links and `Location` headers under `/catalogue`, and touches nothing outside its mount.
 * No body parser is needed. One installed before the mount (say a global `express.json()`)
 * is tolerated: the body it consumed is handed to the service (text and buffers exactly,
 * parsed JSON re-serialised), and a body it refused as malformed or too large is answered
 * by the service as if no parser had run. See `expressMiddleware` for the details.
 */
import { Readable } from 'node:stream';
import type { ErrorRequestHandler, Request as ExpressRequest, RequestHandler } from 'express';
import { MAX_BODY_BYTES } from '../core/http/readJsonBody.js';
import { createPetService, type PetService, type PetServiceOptions } from '../core/index.js';
import { adapterErrorAnswer, writeErrorAnswer } from './node/adapterErrorAnswer.js';
import { FIXED_ORIGIN, framesNoBody, type KnownHost, readRequestHead } from './node/readRequestHead.js';

/** What a body parser that ran before us left behind, or `undefined` when it read nothing. */
type ParsedBody = { body: string | Uint8Array } | { body: null } | undefined;

/**
 * The body an earlier parser consumed, in a form the service can read again. Text and
 * buffers (`express.text()`, `express.raw()`) are the exact bytes sent; anything else was
 * parsed JSON and is written back as JSON. Express 5 leaves `req.body` undefined until a
 * parser runs, so `undefined` means the stream is still unread.
 */
const consumedBody = (req: ExpressRequest): ParsedBody => {
  const body: unknown = req.body;
  if (body === undefined) return undefined;
  // express.json() turns an empty body into {}; the service must still see it as empty.
  if (req.headers['content-length'] === '0') return { body: null };
  if (typeof body === 'string' || body instanceof Uint8Array) return { body };
  return { body: JSON.stringify(body) };
};

/**
 * Builds the Web Request for an Express request: the fixed origin plus the path and query of
 * its original target (mount path included), never the Host header. Its signal aborts when
 * the client leaves before the request arrived whole or its answer was sent.
 */
const webRequestOfExpress = (
  req: ExpressRequest,
  pathAndQuery: string,
  replayed?: { body: string | null; headers?: Record<string, string> },
): Request => {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    // HTTP/2 pseudo-headers (`:path`) are not header names a Web Request accepts.
    if (!name.startsWith(':')) headers.append(name, req.rawHeaders[i + 1]!);
  }
  for (const [name, value] of Object.entries(replayed?.headers ?? {})) headers.set(name, value);
  const controller = new AbortController();
  const abandon = () => {
    if ((!req.complete || !req.res?.writableFinished) && !controller.signal.aborted) controller.abort();
  };
  req.res?.once('close', abandon);
  req.once('error', abandon);
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal };
  if (req.method !== 'GET' && req.method !== 'HEAD' && !framesNoBody(req.headers)) {
    const parsed = replayed ?? consumedBody(req);
    if (parsed) init.body = parsed.body as BodyInit | null;
    else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
  }
  return new Request(`${FIXED_ORIGIN}${pathAndQuery}`, init);
};

/** Writes a Web Response through Express's response. */
const send = async (response: Response, res: Parameters<RequestHandler>[1]): Promise<void> => {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.end(Buffer.from(await response.arrayBuffer()));
};

/** A body-parser error; `body` is the text it could not parse, when it got that far. */
interface BodyParserError {
  type: string;
  body?: unknown;
  length?: number;
  received?: number;
}

/**
 * The middleware: a request handler, and an error handler for a body parser's refusals
 * (Express only hands errors to four-argument functions, so one function cannot do both).
 * Express flattens the pair wherever middleware is accepted: `app.use(path, expressMiddleware(…))`.
 */
export type ExpressMiddleware = [RequestHandler, ErrorRequestHandler];

const isBodyParserError = (error: unknown): error is BodyParserError =>
  typeof error === 'object' && error !== null && typeof (error as { type?: unknown }).type === 'string';

/**
 * Creates Express middleware serving animal-store under its mount path. Pass the service's
 * options, or a service built with `createPetService` (to share it with other adapters or
 * reach `service.catalogue`).
 *
 * With a body parser installed before the mount:
 * - `express.raw()` / `express.text()`: the service reads the exact bytes that were sent.
 * - `express.json()`: the service reads the parsed value written back as JSON, so JSON
 *   details the parser has already smoothed over are not seen (duplicate keys, a fraction
 *   such as `1.0000000000000001`); integers beyond 2^53−1 are still refused, never rounded.
 * - The parser's own refusals are answered by the service, as Error bodies: malformed JSON
 *   (`invalid_json`, or `unauthorized` without a valid key), bodies over the parser's
 *   limit (`payload_too_large`), and a charset or Content-Encoding the parser does not know.
 *   Other parser errors (a `verify` function's, a limit stricter than 64 KiB) are the app's
 *   and go on to its error handlers.
 *
 * The request's path comes from its target alone, never from `Host`; a malformed `Host` or
 * two `Authorization` headers are a 400 Error. Whatever fails inside is a bare 500 Error,
 * never Express's error page.
 *
 * @param options The service's options, or a built service.
 * @returns The middleware to pass to `app.use(path, …)`.
 */
export const expressMiddleware = (options: PetServiceOptions | PetService): ExpressMiddleware => {
  const service = typeof options === 'function' ? options : createPetService(options);
  const logger = typeof options === 'function' ? undefined : options.logger;
  const reportError = logger?.error ?? ((message: string, error: unknown) => console.error(message, error));
  const knownHost: KnownHost = { last: undefined };

  /**
   * Answers with an Error the service never saw (a malformed head; anything but an
   * AnimalStoreError, a failure of our own, is a bare 500), logged as the service would.
   */
  const answer = (req: ExpressRequest, res: Parameters<RequestHandler>[1], error: unknown) => {
    const errorAnswer = adapterErrorAnswer(error);
    try {
      logger?.access?.({
        method: req.method,
        path: req.originalUrl.split('?', 1)[0]!.slice(0, 200),
        status: errorAnswer.status,
        milliseconds: 0,
        operation: undefined,
      });
    } catch (error) {
      reportError('the access log failed', error);
    }
    writeErrorAnswer(req, res, errorAnswer);
  };

  /**
   * Serves one request through the service, or answers it here when its head is malformed.
   * Nothing is left to throw into Express, whose default error handler shows stack traces
   * outside production: a failure of ours is a bare 500 Error, and is reported.
   */
  const serveRequest = async (
    req: ExpressRequest,
    res: Parameters<RequestHandler>[1],
    replayed?: { body: string | null; headers?: Record<string, string> },
  ): Promise<void> => {
    try {
      const head = readRequestHead(req.originalUrl, req.rawHeaders, req.httpVersion, knownHost);
      if (head.answer) return answer(req, res, head.answer);
      await send(await service(webRequestOfExpress(req, head.pathAndQuery, replayed), { mountPath: req.baseUrl }), res);
    } catch (error) {
      reportError(`${req.method} ${req.originalUrl.split('?', 1)[0]!.slice(0, 200)} failed`, error);
      answer(req, res, error);
    }
  };

  const handle: RequestHandler = (req, res) => serveRequest(req, res);

  // Errors from a parser that ran before us: replay the request as it arrived, as far as known.
  const replayParserError: ErrorRequestHandler = async (error: unknown, req, res, next) => {
    if (!isBodyParserError(error)) return next(error);
    if (error.type === 'entity.parse.failed' && typeof error.body === 'string') return serveRequest(req, res, { body: error.body });
    // The parser stopped reading; its byte count is what the service's own size check needs.
    // Under our bound, the refusal came from the app's stricter limit, which is the app's to answer.
    const length = error.length ?? error.received;
    if (error.type === 'entity.too.large' && length !== undefined && length > MAX_BODY_BYTES) {
      return serveRequest(req, res, { body: null, headers: { 'content-length': String(length) } });
    }
    // A charset or Content-Encoding the parser does not know is refused before it reads a
    // byte: the service answers the request as if no parser had run.
    if ((error.type === 'charset.unsupported' || error.type === 'encoding.unsupported') && !req.readableDidRead) {
      return serveRequest(req, res);
    }
    // The client left while the parser read; there is no one to answer.
    if (error.type === 'request.aborted') {
      res.destroy();
      return;
    }
    return next(error);
  };

  return [handle, replayParserError];
};
