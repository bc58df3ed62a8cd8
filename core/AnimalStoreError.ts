/** @module The one error type of animal-store. */
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorDetail } from './schemas/ErrorBody.js';

/** Options of an AnimalStoreError beyond its code and message. */
export interface AnimalStoreErrorOptions {
  /** One entry per validation problem (only for `validation_failed`). */
  details?: ErrorDetail[];
  /** Extra response headers, such as `Allow` on a 405 or `WWW-Authenticate` on a 401. */
  headers?: Record<string, string>;
  /** The underlying error, kept for logs and never shown to a client. */
  cause?: unknown;
}

/**
 * Every failure the service reports, whether it reaches a caller as an HTTP Error body or
 * as a thrown error from the in-process catalogue. The status follows from the code.
 */
export class AnimalStoreError extends Error {
  override readonly name = 'AnimalStoreError';
  /** The machine-readable code, one of the fixed set. */
  readonly code: ErrorCode;
  /** The HTTP status this code travels with. */
  readonly status: number;
  /** One entry per validation problem, when the code is `validation_failed`. */
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AnimalStoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The Error body of this error. */
  toJSON(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, status: this.status };
    if (this.details) body.details = this.details;
    return body;
  }
}

/** Tells whether a value is an AnimalStoreError, also across copies of the package. */
export const isAnimalStoreError = (error: unknown): error is AnimalStoreError =>
  error instanceof AnimalStoreError ||
  (error instanceof Error && error.name === 'AnimalStoreError' && 'code' in error && 'status' in error);

/** Quotes at most a short prefix of what a caller sent, so messages stay small and safe. */
export const quote = (value: string, max = 32): string => JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
