/** @module Speaks the sync protocol to a hub over fetch: lease, push, pull. */
import type { Pet } from '../schemas/Pet.js';
import type { IdBlock, StoreResult } from './SyncStorage.js';

/** Why an exchange with the hub failed: out of reach, or its answer. */
export class SyncHubError extends Error {
  override readonly name = 'SyncHubError';
  /** The hub's HTTP status, or `undefined` when it was not reached. */
  readonly status: number | undefined;

  constructor(message: string, status?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/** How to reach a hub. */
export interface SyncClientOptions {
  /** The hub's base URL, such as `https://hub.example/v1`. */
  hub: string;
  /** A key the hub accepts. */
  key: string;
  /** How long one exchange may take, in milliseconds; a hub that goes silent is given up on then. */
  timeoutMilliseconds?: number;
  /** The fetch to use; the runtime's by default (a test or an in-process hub may pass its own). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

/** How a pull waits. */
export interface PullOptions {
  /** Seconds the hub may wait for an animal when none follows the checkpoint (0 to 60); 0 by default. */
  wait?: number;
  /** Ends the pull early (a stopping kiosk); it then rejects with a SyncHubError. */
  signal?: AbortSignal;
}

/** The three calls a kiosk makes to its hub. */
export interface SyncClient {
  lease(): Promise<IdBlock>;
  push(pets: readonly Pet[]): Promise<StoreResult>;
  pull(checkpoint: number, limit: number, options?: PullOptions): Promise<{ pets: Pet[]; checkpoint: number }>;
}

/** The reason a fetch failed, in a few words (the cause's code, when it has one). */
const networkReason = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return 'it did not answer in time';
  return cause?.code ?? cause?.message ?? (error as Error).message;
};

/** Creates a client of the hub's sync endpoints. Every failure is a SyncHubError saying what happened. */
export const createSyncClient = ({ hub, key, timeoutMilliseconds = 10_000, fetch: fetchFn = fetch }: SyncClientOptions): SyncClient => {
  const base = hub.replace(/\/+$/, '');
  const call = async <T>(path: string, init: RequestInit = {}, waitSeconds = 0, signal?: AbortSignal): Promise<T> => {
    let response: Response;
    // A waiting pull may take its wait, and then as long as any exchange.
    const timeout = AbortSignal.timeout(timeoutMilliseconds + waitSeconds * 1000);
    try {
      response = await fetchFn(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
      });
    } catch (error) {
      throw new SyncHubError(`cannot reach the hub ${base}: ${networkReason(error)}`, undefined, { cause: error });
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new SyncHubError(`the hub ${base} answered ${response.status} without JSON (${networkReason(error)})`, response.status, {
        cause: error,
      });
    }
    if (!response.ok) {
      const message = (body as { message?: unknown }).message;
      throw new SyncHubError(
        `the hub ${base} answered ${response.status}: ${typeof message === 'string' ? message.slice(0, 300) : 'no message'}`,
        response.status,
      );
    }
    return body as T;
  };
  return {
    lease: () => call('/sync/leases', { method: 'POST', body: '{}' }),
    push: (pets) => call('/sync/push', { method: 'POST', body: JSON.stringify({ pets }) }),
    pull: (checkpoint, limit, { wait = 0, signal } = {}) =>
      call(`/sync/pull?checkpoint=${checkpoint}&limit=${limit}${wait > 0 ? `&wait=${wait}` : ''}`, {}, wait, signal),
  };
};
