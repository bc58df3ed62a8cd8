/** @module JSON responses, and the one place any error becomes an Error response. */
import { AnimalStoreError, isAnimalStoreError } from '../AnimalStoreError.js';

/** Headers every JSON answer carries. */
const JSON_TYPE = 'application/json';

/** A JSON response with the given status and extra headers. */
export const jsonResponse = (status: number, body: unknown, headers?: Record<string, string>): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: headers ? { 'content-type': JSON_TYPE, ...headers } : { 'content-type': JSON_TYPE },
  });

/** Reports an unexpected error to the operator; never to the client. */
export type ReportError = (message: string, error: unknown) => void;

/**
 * Turns anything thrown while handling a request into an Error response. Known errors keep
 * their code, message and headers; anything else is logged and becomes a bare 500 whose
 * message tells nothing of the internals.
 */
export const errorResponse = (error: unknown, report: ReportError, context: string): Response => {
  const known = isAnimalStoreError(error)
    ? error
    : new AnimalStoreError('internal_error', 'Something went wrong on our side; nothing was changed by the failure. Please try again.');
  if (!isAnimalStoreError(error) || known.status >= 500) report(`${context} failed`, error);
  return jsonResponse(known.status, known.toJSON(), known.headers);
};
