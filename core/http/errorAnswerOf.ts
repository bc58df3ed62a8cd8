/**
 * @module The one place an error becomes an Error answer: the service's responder and every
 * adapter (node:http, Express, fetch) make theirs here.
 */
import { AnimalStoreError, isAnimalStoreError } from '../AnimalStoreError.js';

/** An Error answer as data, for any runtime to send: status, headers, and the Error body as JSON text. */
export interface ErrorAnswer {
  status: number;
  /** A record made for this answer: a caller may add to it (`Content-Length`, `Connection`). */
  headers: Record<string, string>;
  body: string;
}

/** Seconds a client is asked to wait before retrying a 503, when the error names no other time. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** What a client is told of a failure that is not its own: nothing of the internals. */
const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side; nothing was changed by the failure. Please try again.';

// Errors are never stored by a cache, and are always JSON.
const FAILURE = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/**
 * The Error answer for anything thrown. An AnimalStoreError keeps its code, message, status
 * and headers; anything else becomes a bare 500 that tells nothing (the caller reports the
 * error to the operator, never to the client). Every 503 says when to try again.
 *
 * @param error What was thrown.
 * @param headers Headers the answer carries besides the error's own (CORS, rate limits, `Connection`).
 */
export const errorAnswerOf = (error: unknown, headers?: Readonly<Record<string, string>>): ErrorAnswer => {
  const known = isAnimalStoreError(error) ? error : new AnimalStoreError('internal_error', INTERNAL_ERROR_MESSAGE);
  const answerHeaders: Record<string, string> = Object.assign({}, FAILURE, known.headers, headers);
  if (known.status === 503) answerHeaders['retry-after'] ??= String(DEFAULT_RETRY_AFTER_SECONDS);
  return { status: known.status, headers: answerHeaders, body: JSON.stringify(known.toJSON()) };
};

/** The Error answer for anything thrown, as a Web Response (for fetch runtimes). */
export const errorResponse = (error: unknown, headers?: Readonly<Record<string, string>>): Response => {
  const { status, headers: answerHeaders, body } = errorAnswerOf(error, headers);
  return new Response(body, { status, headers: answerHeaders });
};
