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
  /**
   * The HTTP status, when it is not the code's own: a server refusing headers too large
   * answers 431 with `validation_failed`.
   */
  status?: number;
}

/**
 * Every failure the service reports, whether it reaches a caller as an HTTP Error body or
 * as a thrown error from the in-process catalogue. The status follows from the code.
 */
export class AnimalStoreError extends Error {
  override readonly name = 'AnimalStoreError';
  /** The machine-readable code, one of the fixed set. */
  readonly code: ErrorCode;
  /** The HTTP status this error travels with: its code's, unless given. */
  readonly status: number;
  /** One entry per validation problem, when the code is `validation_failed`. */
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AnimalStoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /**
   * The Error body of this error, kept small whatever the request held: at most
   * `MAX_DETAILS` details (the last one saying how many more there were) and a message of at
   * most `MAX_MESSAGE_LENGTH` characters, so no error is much larger than a page of animals.
   */
  toJSON(): ErrorBody {
    const message = this.message.length > MAX_MESSAGE_LENGTH ? `${this.message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : this.message;
    const body: ErrorBody = { code: this.code, message, status: this.status };
    if (this.details) {
      const { details } = this;
      body.details =
        details.length <= MAX_DETAILS
          ? details
          : [
              ...details.slice(0, MAX_DETAILS - 1),
              { path: '…', message: `and ${details.length - MAX_DETAILS + 1} more problems like these` },
            ];
    }
    return body;
  }
}

/** The most details an Error body lists. */
export const MAX_DETAILS = 20;

/** The longest message an Error body carries, in UTF-16 units. */
export const MAX_MESSAGE_LENGTH = 1_000;

/** Tells whether a value is an AnimalStoreError, also across copies of the package. */
export const isAnimalStoreError = (error: unknown): error is AnimalStoreError =>
  error instanceof AnimalStoreError ||
  (error instanceof Error && error.name === 'AnimalStoreError' && 'code' in error && 'status' in error);

/** Quotes at most a short prefix of what a caller sent, so messages stay small and safe. */
export const quote = (value: string, max = 32): string => JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
