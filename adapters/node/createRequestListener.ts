/**
 * @module The bridge from `node:http` to the service: builds the Web Request from the request
 * target alone, answers what must not reach the service, and bounds what one connection may
 * have waiting. `@whatwg-node` builds the Request and writes the answer, as it does in its
 * own adapter, whose URL comes from the Host header.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Request as ServerRequest } from '@whatwg-node/fetch';
import { createCustomAbortControllerSignal, sendNodeResponse } from '@whatwg-node/server';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { type MaybePromise, whenReady, whenSettled } from '../../core/MaybePromise.js';
import { adapterErrorAnswer, writeErrorAnswer } from './adapterErrorAnswer.js';
import { connectionState, trackAnswer } from './connectionState.js';
import { FIXED_ORIGIN, framesNoBody, type KnownHost, readRequestHead, targetPathAndQuery } from './readRequestHead.js';

/** What the listener needs beyond the service. */
export interface RequestListenerOptions {
  /** Requests one connection may have waiting for their answers; see `ServeOptions.maxPipelinedRequests`. */
  maxPipelinedRequests: number;
  /** Records an answer the adapter made itself, for the access log. */
  logAnswer(method: string, path: string, status: number): void;
  /** Reports a failure of the adapter itself: the client sees a bare 500. */
  reportError(message: string, error: unknown): void;
}

const tooManyPipelined = (max: number) =>
  new AnimalStoreError(
    'rate_limited',
    `More than ${max} requests were sent on one connection without waiting for their answers; read the answers, or open another connection.`,
    { headers: { 'retry-after': '1' } },
  );

/**
 * Stops reading a refused connection: it closes once the answers it is owed are sent.
 *
 * One read can hold a thousand more pipelined requests, and node:http parses a read whole,
 * making objects for each request, before any of them is seen here: that, not the answers,
 * is what a flood of pipelined requests costs. Node's parser stops in the middle of a read
 * when the request callback answers 2, which is how Node hands over an upgraded connection;
 * the parser's callback is replaced with one that answers just that, so the rest of the read
 * is dropped unparsed. Where a Node version has no such callback, the requests still arrive
 * here and are dropped one by one (see `dropped`).
 */
const stopReading = (socket: Socket): void => {
  socket.pause();
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } }).parser;
  if (parser && typeof parser.onIncoming === 'function') parser.onIncoming = () => 2;
};

/** The path of a request for the log: from its target, without the query (which may hold a cursor). */
export const logPath = (target: string | undefined) => (targetPathAndQuery(target ?? '') ?? target ?? '').split('?', 1)[0]!.slice(0, 200);

/**
 * Builds the Web Request: the fixed origin plus the target's path and query, the headers as
 * received, the body streamed (none when the head frames none), and `signal`, which the listener aborts when the client goes
 * away before its answer is sent, so a half-sent body is seen as abandoned rather than as a failure.
 */
const toWebRequest = (req: IncomingMessage, pathAndQuery: string, signal: AbortSignal): Request => {
  const url = `${FIXED_ORIGIN}${pathAndQuery}`;
  const method = req.method ?? 'GET';
  // As @whatwg-node/server passes them: its Headers reads Node's header record in place.
  const headers = req.headers as unknown as HeadersInit;
  if (method === 'GET' || method === 'HEAD' || framesNoBody(req.headers)) return new ServerRequest(url, { method, headers, signal });
  return new ServerRequest(url, {
    method,
    headers,
    signal,
    body: req as unknown as ReadableStream<Uint8Array>,
    duplex: 'half',
  } as RequestInit);
};

/**
 * Creates the `node:http` request listener for the service. Every request gets an answer or
 * a closed connection, never a stack trace: whatever throws becomes a bare 500 and is reported.
 */
export const createRequestListener = (
  service: (request: Request) => MaybePromise<Response>,
  options: RequestListenerOptions,
): RequestListener => {
  const { maxPipelinedRequests, logAnswer, reportError } = options;
  const knownHost: KnownHost = { last: undefined };

  /** Answers with the Error answer of `error` (a bare 500 for anything but an AnimalStoreError). */
  const answer = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    const errorAnswer = adapterErrorAnswer(error);
    logAnswer(req.method ?? '', logPath(req.url), errorAnswer.status);
    writeErrorAnswer(req, res, errorAnswer);
  };

  return (req, res) => {
    const connection = connectionState(req.socket);
    // After a refusal the connection closes once the answers owed are sent: the rest of what
    // was pipelined behind it is dropped unanswered, as HTTP lets a server close at any time.
    // Should requests still arrive (see stopReading), each is kept by Node until the
    // connection closes: a client that sends that far ahead is cut off at once.
    if (connection.refused) {
      if (++connection.dropped === maxPipelinedRequests) req.socket.destroy();
      return;
    }
    const controller = createCustomAbortControllerSignal();
    trackAnswer(connection, req, res, () => controller.abort());
    if (connection.waiting > maxPipelinedRequests) {
      connection.refused = true;
      stopReading(req.socket);
      answer(req, res, tooManyPipelined(maxPipelinedRequests));
      return;
    }

    const head = readRequestHead(req.url ?? '', req.rawHeaders, req.httpVersion, knownHost);
    if (head.answer) {
      answer(req, res, head.answer);
      return;
    }
    let request: Request;
    try {
      request = toWebRequest(req, head.pathAndQuery, controller.signal);
    } catch (error) {
      reportError(`${req.method} ${logPath(req.url)} could not be read`, error);
      answer(req, res, error);
      return;
    }
    const failed = (error: unknown) => {
      reportError(`${req.method} ${logPath(req.url)} failed`, error);
      answer(req, res, error);
    };
    // An answer made at once is written at once, before node:http's callback returns; a
    // failure of the service or of the writing, at once or later, is a bare 500.
    whenSettled(
      () => whenReady(service(request), (response) => sendNodeResponse(response, res, req, true)),
      () => undefined,
      failed,
    );
  };
};
