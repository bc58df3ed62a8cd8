/** @module Tells the operator about a failing storage once, with its cause, not once per request. */
import type { AnimalStoreError } from './AnimalStoreError.js';

/** Records storage failures and recoveries. */
export interface StorageFailureLog {
  /** A request failed with `storage_unavailable`: reported when its cause differs from the last one reported. */
  failed(error: AnimalStoreError): void;
  /** A write (or a health check) succeeded: the next failure is news again. */
  succeeded(): void;
}

/**
 * The reason of a storage failure: the storage's own words for its cause (`The data file
 * /x/animals.json cannot be written: no space left on device (ENOSPC)`), which stay the same
 * while the failure lasts, else the error's message.
 */
const storageFailureReason = (error: AnimalStoreError): string => {
  const { cause } = error;
  if (cause instanceof Error) return cause.message;
  if (typeof cause === 'string') return cause;
  return error.message;
};

/**
 * Creates the log. While a disk is full or a database is down every create fails the same
 * way; one line saying why (through `report`, with the error, whose message is all a log
 * needs), and one when it works again (through `warn`), tell an operator more than a stack
 * per request.
 */
export const createStorageFailureLog = (
  report: (message: string, error: unknown) => void,
  warn: (message: string) => void,
): StorageFailureLog => {
  let reported: string | undefined;
  return {
    failed(error) {
      const reason = storageFailureReason(error);
      if (reason === reported) return;
      reported = reason;
      report(`storage failing, answering 503 until it recovers: ${reason}`, error);
    },
    succeeded() {
      if (reported === undefined) return;
      reported = undefined;
      warn('storage works again');
    },
  };
};
