/** @module The one error type of the HTTP client. */
import type { ErrorCode, ErrorDetail } from '../schemas/ErrorBody.js';

/**
 * A code the client reports: one of the service's own Error codes, or one of those the
 * client adds for failures that never produced an Error body.
 * - `network_error` (status 0): the request did not complete (refused, reset, DNS).
 * - `timeout` (status 0): no answer within the client's `timeout`, on every try.
 * - `aborted` (status 0): the caller's `signal` aborted the call.
 * - `invalid_response`: an answer that is not what the interface promises (not JSON, not
 *   an Error body on a failure, not an animal on a success, a link to another origin).
 */
export type ClientErrorCode = ErrorCode | 'network_error' | 'timeout' | 'aborted' | 'invalid_response';

/** What an AnimalStoreClientError carries: the Error body's fields. */
export interface ClientErrorBody {
  code: ClientErrorCode;
  message: string;
  /** The HTTP status; 0 when no response arrived. */
  status: number;
  /** One entry per validation problem, on a `validation_failed`. */
  details?: ErrorDetail[] | undefined;
}

/** Every failure of a client call: the service's Error body, or a transport failure. */
export class AnimalStoreClientError extends Error {
  override readonly name = 'AnimalStoreClientError';
  /** The machine-readable code. */
  readonly code: ClientErrorCode;
  /** The HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** One entry per validation problem, on a `validation_failed`. */
  readonly details: ErrorDetail[] | undefined;

  constructor({ code, message, status, details }: ClientErrorBody, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

/** Tells whether a value is an AnimalStoreClientError, also across copies of the package. */
export const isAnimalStoreClientError = (error: unknown): error is AnimalStoreClientError =>
  error instanceof AnimalStoreClientError ||
  (error instanceof Error && error.name === 'AnimalStoreClientError' && 'code' in error && 'status' in error);
