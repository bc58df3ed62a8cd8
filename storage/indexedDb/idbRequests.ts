/** @module IndexedDB's events as promises: a request's result, a transaction's commit. */

/** The result of an IndexedDB request, or its error. */
export const requestResult = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('The IndexedDB request failed.'));
  });

/**
 * Resolves once the transaction committed (its `complete` event: with `durability:
 * 'strict'`, once the browser flushed it to disk), rejects when it aborts or fails; a
 * request's failure aborts the whole transaction, so nothing of it is kept.
 */
export const committed = (transaction: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    const fail = () => reject(transaction.error ?? new DOMException('The IndexedDB transaction was aborted.', 'AbortError'));
    transaction.onabort = fail;
    transaction.onerror = (event) => {
      // The transaction aborts next; reporting from `abort` alone keeps one rejection.
      event.preventDefault();
      if (transaction.error === null) return;
      try {
        transaction.abort();
      } catch {
        // Aborting an already finished transaction throws: `abort` or `complete` reports.
      }
    };
  });
