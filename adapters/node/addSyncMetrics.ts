/** @module A kiosk's sync state as Prometheus gauges, read from the replicator at each scrape. */
import type { SyncStatus } from '../../core/schemas/SyncSchemas.js';

type PromClient = typeof import('prom-client');

/** Seconds since the epoch of an ISO time, or NaN (Prometheus's "no value") for none. */
const seconds = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso) / 1000);

/**
 * Adds the sync gauges to `registers`, each read at scrape time from the statuses listed
 * (none on a server that is not a kiosk, and then the gauges report nothing):
 * `animal_store_sync_reachable` (1 or 0), `animal_store_sync_waiting` (local creates not
 * pushed yet), `animal_store_sync_ids_left`, and `animal_store_sync_last_push_timestamp_seconds`
 * and `…_last_pull_timestamp_seconds`.
 */
export const addSyncMetrics = (
  client: PromClient,
  registers: import('prom-client').Registry[],
  statuses: Array<() => Promise<SyncStatus>>,
) => {
  const gauge = (name: string, help: string, read: (status: SyncStatus) => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        this.reset();
        for (const status of statuses) this.set(read(await status()));
      },
    });
  gauge('animal_store_sync_reachable', 'Whether the last exchange with the hub succeeded (1) or not (0).', (status) =>
    status.reachable ? 1 : 0,
  );
  gauge('animal_store_sync_waiting', 'Animals made at this kiosk that the hub does not have yet.', (status) => status.waiting);
  gauge('animal_store_sync_ids_left', 'Ids the hub leased to this kiosk that are left for local creates.', (status) => status.idsLeft);
  gauge('animal_store_sync_last_push_timestamp_seconds', 'When the last push to the hub succeeded.', (status) => seconds(status.lastPush));
  gauge('animal_store_sync_last_pull_timestamp_seconds', 'When the last pull from the hub succeeded.', (status) =>
    seconds(status.lastPull),
  );
};
