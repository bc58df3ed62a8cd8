/** @module Tells the operator about a failing storage once, with its cause, not once per request. */
import type { AnimalStoreError } from './AnimalStoreError.js';

/** Records storage failures and recoveries. */
export interface StorageFailureLog {
  /** A request failed with `storage_unavailable`: reported when its cause differs from the last one reported. */
  failed(error: AnimalStoreError): void;
  /** A write (or a health check) succeeded: the next failure is news again. */
  succeeded(): void;
}

/** The innermost reason of an error: `ENOSPC: no space left on device, open '…'` rather than a wrapper's words. */
const causeOf = (error: unknown): string => {
  let reason = error instanceof Error ? error.message : String(error);
  for (let cause = (error as { cause?: unknown }).cause, depth = 0; cause !== undefined && depth < 8; depth++) {
    if (cause instanceof Error) reason = cause.message;
    else if (typeof cause === 'string') reason = cause;
    cause = (cause as { cause?: unknown } | null)?.cause;
  }
  return reason;
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
      const reason = causeOf(error);
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
