/** @module Makes every answer of the service, and is the one place any error becomes an Error answer. */
import { isAnimalStoreError } from '../AnimalStoreError.js';
import { encodeUtf8 } from '../encodeUtf8.js';
import { errorAnswerOf } from './errorAnswerOf.js';
import { withHeaders } from './withHeaders.js';

/** Reports an unexpected error to the operator; never to the client. */
export type ReportError = (message: string, error: unknown) => void;

/** Makes every response the service sends, with one Response class throughout. */
export interface Responder {
  /** A JSON response; headers are given whole, up front, so servers can write them in one go. */
  json(status: number, body: unknown, headers?: Record<string, string>): Response;
  /** A JSON response from text that is JSON already (a document serialised once and kept). */
  jsonText(status: number, text: string, headers?: Record<string, string>): Response;
  /** A 304 Not Modified: the headers a 200 would carry (ETag, caching, the route's own), no body. */
  notModified(headers: Record<string, string>): Response;
  /** Any other answer: a body of the given type (an HTML page, a script). */
  body(status: number, content: string | Uint8Array, headers: Record<string, string>): Response;
  /** The Error response for anything thrown while handling a request. */
  error(error: unknown, context: string, headers?: Record<string, string>): Response;
}

/** How a responder answers. */
export interface ResponderOptions {
  /**
   * False for HEAD: the same status and headers as GET, `Content-Length` telling the size of
   * the body GET would send, and no body.
   */
  bodies?: boolean;
}

// The headers every answer carries. Successes may be stored by the caller's own cache only,
// and revalidated before each use (ETags make that cheap); errors are never stored.
const SUCCESS = { 'content-type': 'application/json', 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' };
const NOT_MODIFIED = { 'cache-control': 'private, no-cache', 'x-content-type-options': 'nosniff' };
const NOSNIFF = { 'x-content-type-options': 'nosniff' };

/**
 * Creates a responder. `ResponseClass` is the runtime's Response unless an adapter passes
 * its own: `@whatwg-node/server` writes its own Response's string body to the socket in one
 * call, but must stream a foreign one, which costs several times the throughput.
 */
export const createResponder = (
  ResponseClass: typeof Response,
  report: ReportError,
  { bodies = true }: ResponderOptions = {},
): Responder => {
  // `headers` is a record made for this answer: the Response keeps it, and a server's may
  // add Content-Length to it.
  const send = (status: number, content: string | Uint8Array, headers: Record<string, string>) => {
    if (bodies) return new ResponseClass(content as BodyInit, { status, headers });
    headers['content-length'] = String(typeof content === 'string' ? encodeUtf8(content).byteLength : content.byteLength);
    return new ResponseClass(null, { status, headers });
  };
  const jsonText: Responder['jsonText'] = (status, text, headers) => send(status, text, withHeaders(SUCCESS, headers));
  const json: Responder['json'] = (status, body, headers) => jsonText(status, JSON.stringify(body), headers);

  return {
    json,
    jsonText,
    notModified: (headers) => new ResponseClass(null, { status: 304, headers: withHeaders(NOT_MODIFIED, headers) }),
    body: (status, content, headers) => send(status, content, withHeaders(NOSNIFF, headers)),
    /** The one Error answer (`errorAnswerOf`); an error that is not an AnimalStoreError is reported first. */
    error(error, context, headers) {
      if (!isAnimalStoreError(error)) report(`${context} failed`, error);
      const answer = errorAnswerOf(error, headers);
      return send(answer.status, answer.body, answer.headers);
    },
  };
};
