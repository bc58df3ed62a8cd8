/** @module Arrivals across the instances of one PostgreSQL schema: LISTEN/NOTIFY, with this instance's own told at once. */
import { type Arrivals, createArrivals } from '../../core/sync/createArrivals.js';
import type { PostgresConnection } from './connectPostgres.js';
import type { PostgresPoolClient } from './PostgresPool.js';

/** The channel every instance notifies and listens on; the payload is the schema, so schemas sharing a database keep apart. */
export const ARRIVALS_CHANNEL = 'animal_store_arrivals';

/** While no LISTEN connection works: how often waiting pulls are told to look again, and a new connection tried. */
const FALLBACK_MILLISECONDS = 1_000;

/** A pg client as LISTEN needs it: notifications and errors come as events. */
interface ListeningClient extends PostgresPoolClient {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
}

/** A schema's arrivals. */
export interface PostgresArrivals {
  /** Listens for animals arriving through any instance (see `SyncStorage.onArrival`). */
  onArrival(listener: () => void): () => void;
  /** Tells this instance's waiting pulls at once and the other instances by NOTIFY; after a commit of this instance. */
  announce(): void;
  /** The statement that notifies the other instances from inside a transaction, and its values. */
  readonly notify: { text: string; values: unknown[] };
  /** Gives the LISTEN connection back; before the pool ends. */
  close(): Promise<void>;
}

/**
 * Makes the arrivals of `db`'s schema. The LISTEN connection is taken from the pool only
 * once a pull first waits (an instance that never serves one holds no extra connection),
 * and taken again should it fail; meanwhile waiting pulls are told to look once a second,
 * by one timer for all. Notifications of this instance's creates are sent after their
 * commit, one at a time however many creates commit meanwhile (one more follows to cover
 * them), so they cost a create nothing on its way.
 */
export const createPostgresArrivals = (db: PostgresConnection): PostgresArrivals => {
  const arrivals: Arrivals = createArrivals();
  const notify = { text: 'SELECT pg_notify($1, $2)', values: [ARRIVALS_CHANNEL, db.schema] };
  let client: ListeningClient | undefined;
  let connecting: Promise<void> | undefined;
  let fallback: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const startFallback = () => {
    if (fallback !== undefined || closed) return;
    fallback = setInterval(() => {
      if (arrivals.size === 0) return;
      arrivals.notify();
      void listen();
    }, FALLBACK_MILLISECONDS);
    fallback.unref?.();
  };
  const stopFallback = () => {
    clearInterval(fallback);
    fallback = undefined;
  };

  const drop = (failed: ListeningClient, error?: Error) => {
    if (client !== failed) return;
    client = undefined;
    failed.removeAllListeners?.('notification');
    failed.release(error ?? true);
    startFallback();
  };

  const listen = (): Promise<void> =>
    (connecting ??= (async () => {
      if (client !== undefined || closed) return;
      let taken: ListeningClient | undefined;
      try {
        taken = (await db.pool.connect()) as ListeningClient;
        if (typeof taken.on !== 'function') {
          // A pool of another shape: no notifications, the fallback tells waiting pulls.
          taken.release();
          startFallback();
          return;
        }
        const listening = taken;
        listening.on('notification', ({ channel, payload }) => {
          if (channel === ARRIVALS_CHANNEL && payload === db.schema) arrivals.notify();
        });
        listening.on('error', (error) => drop(listening, error));
        listening.on('end', () => drop(listening));
        await listening.query(`LISTEN ${ARRIVALS_CHANNEL}`);
        if (closed) {
          listening.release(true);
          return;
        }
        client = listening;
        stopFallback();
        // Whatever arrived while nobody listened is looked for now.
        arrivals.notify();
      } catch (error) {
        if (taken !== undefined && client !== taken) taken.release(error instanceof Error ? error : true);
        startFallback();
      }
    })().finally(() => {
      connecting = undefined;
    }));

  let sending: Promise<unknown> | undefined;
  let more = false;
  const sendNotify = () => {
    if (sending !== undefined) {
      more = true;
      return;
    }
    sending = db
      .query(notify.text, notify.values)
      .catch(() => undefined)
      .finally(() => {
        sending = undefined;
        if (more && !closed) {
          more = false;
          sendNotify();
        }
      });
  };

  return {
    onArrival(listener) {
      const unsubscribe = arrivals.subscribe(listener);
      if (client === undefined) void listen();
      return unsubscribe;
    },
    announce() {
      arrivals.notify();
      if (!closed) sendNotify();
    },
    notify,
    async close() {
      closed = true;
      stopFallback();
      await connecting;
      await sending;
      const listening = client;
      client = undefined;
      if (listening !== undefined) {
        listening.removeAllListeners?.('notification');
        try {
          await listening.query(`UNLISTEN ${ARRIVALS_CHANNEL}`);
          listening.release();
        } catch (error) {
          listening.release(error instanceof Error ? error : true);
        }
      }
    },
  };
};
