/** @module Makes every answer of the service, and is the one place any error becomes an Error answer. */
import { AnimalStoreError, isAnimalStoreError } from '../AnimalStoreError.js';

/** Reports an unexpected error to the operator; never to the client. */
export type ReportError = (message: string, error: unknown) => void;

/** Makes every response the service sends, with one Response class throughout. */
export interface Responder {
  /** A JSON response; headers are given whole, up front, so servers can write them in one go. */
  json(status: number, body: unknown, headers?: Record<string, string>): Response;
  /** A JSON response from text that is JSON already (a document serialised once and kept). */
  jsonText(status: number, text: string, headers?: Record<string, string>): Response;
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

const encoder = new TextEncoder();

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
  const jsonText: Responder['jsonText'] = bodies
    ? (status, text, headers) =>
        new ResponseClass(text, {
          status,
          headers: headers ? { 'content-type': 'application/json', ...headers } : { 'content-type': 'application/json' },
        })
    : (status, text, headers) =>
        new ResponseClass(null, {
          status,
          headers: { 'content-type': 'application/json', 'content-length': String(encoder.encode(text).byteLength), ...headers },
        });
  const json: Responder['json'] = (status, body, headers) => jsonText(status, JSON.stringify(body), headers);

  return {
    json,
    jsonText,
    /**
     * Known errors keep their code, message and headers; anything else is logged and
     * becomes a bare 500 whose message tells nothing of the internals.
     */
    error(error, context, headers) {
      const known = isAnimalStoreError(error)
        ? error
        : new AnimalStoreError('internal_error', 'Something went wrong on our side; nothing was changed by the failure. Please try again.');
      if (!isAnimalStoreError(error) || known.status >= 500) report(`${context} failed`, error);
      return json(known.status, known.toJSON(), headers ? { ...known.headers, ...headers } : known.headers);
    },
  };
};
