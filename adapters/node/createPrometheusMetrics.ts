/**
 * @module Prometheus metrics of a server and its storage, made with `prom-client` (an optional
 * peer dependency, loaded only when metrics are asked for) in a registry of their own.
 */
import type { AccessLogEntry, PetService } from '../../core/index.js';
import type { SyncStatus } from '../../core/schemas/SyncSchemas.js';
import type { CommitObserver } from '../../storage/GroupCommit.js';
import { addSyncMetrics } from './addSyncMetrics.js';

/** The metrics of one server; give it to `serve({ metrics })` and its `observeCommit` to the storage. */
export interface PrometheusMetrics {
  /** Counts one answer and its latency; `serve()` calls it for every answer it sends. */
  recordRequest(entry: AccessLogEntry): void;
  /** The storage's commit observer: pass it as `onCommit` to `openJsonFileStorage` or `openPostgresStorage`. */
  observeCommit: CommitObserver;
  /** Reports the deprecated calls `service` counts (per key fingerprint) at every scrape; `serve()` calls it. */
  watch(service: PetService): void;
  /**
   * Reports, at every scrape, the log lines `read` says were dropped so far, per stream
   * (`{ stdout: 3, stderr: 0 }`): the CLI's log drops lines its reader cannot keep up with.
   */
  watchDroppedLogLines(read: () => Readonly<Record<string, number>>): void;
  /** Reports a kiosk's sync state (the replicator's `status`) at every scrape. */
  watchSync(status: () => Promise<SyncStatus>): void;
  /** The metrics in Prometheus's text format, as a scrape reads them. */
  exposition(): Promise<{ body: string; contentType: string }>;
}

/** Thrown when `prom-client` is not installed: the message says the command that installs it. */
export class MissingMetricsLibraryError extends Error {
  override readonly name = 'MissingMetricsLibraryError';

  constructor(cause: unknown) {
    super('Prometheus metrics need the prom-client package, an optional peer dependency of animal-store: npm install prom-client', {
      cause,
    });
  }
}

/** Seconds; from a cached list answer (well under a millisecond) to a write stuck behind a slow disk. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Creates per commit: one when idle, hundreds under load (group commit). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

const loadPromClient = async () => {
  try {
    return await import('prom-client');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new MissingMetricsLibraryError(error);
    throw error;
  }
};

/**
 * Creates the metrics (names begin `animal_store_`), in a registry of their own so that they
 * never mix with whatever else the process registers in prom-client's global one:
 *
 * - `animal_store_http_requests_total{operation,status}`: answers, by the interface's
 *   operation name (`none` for anything else) and HTTP status;
 * - `animal_store_http_request_duration_seconds{operation}`: how long the service took;
 * - `animal_store_storage_commit_batch_size` and `animal_store_storage_commit_duration_seconds{result}`:
 *   each durable write (group commit), how many creates it held and how long it took;
 * - `animal_store_deprecated_calls_total{key_fingerprint}`: calls of the deprecated getPet per
 *   API key, named by the first 12 hex digits of the key's SHA-256, never by the key;
 * - `animal_store_key_requests_total{key}`: answers to authenticated requests, by the calling
 *   key's name (its fingerprint when it has none), never the key;
 * - `animal_store_sync_kiosk_last_contact_timestamp_seconds{kiosk}` on a hub: when each sync
 *   key last leased, pushed or pulled, by its name (see the fleet view);
 * - `animal_store_log_lines_dropped_total{stream}`: log lines dropped because stdout or
 *   stderr could not keep up (see `watchDroppedLogLines`);
 * - `animal_store_sync_*` on a kiosk: whether its hub is reachable, creates waiting to go
 *   up, leased ids left, and the times of the last successful push and pull (see addSyncMetrics.ts);
 * - prom-client's default process metrics (CPU, memory, event loop lag, open files…).
 *
 * Throws a MissingMetricsLibraryError when `prom-client` is not installed.
 */
export const createPrometheusMetrics = async (): Promise<PrometheusMetrics> => {
  const client = await loadPromClient();
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const requests = new client.Counter({
    name: 'animal_store_http_requests_total',
    help: 'HTTP answers, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    registers,
  });
  const latency = new client.Histogram({
    name: 'animal_store_http_request_duration_seconds',
    help: 'Time the service took to answer, by operation.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const batchSize = new client.Histogram({
    name: 'animal_store_storage_commit_batch_size',
    help: 'Creates made durable together in one storage commit (group commit).',
    buckets: BATCH_BUCKETS,
    registers,
  });
  const commitLatency = new client.Histogram({
    name: 'animal_store_storage_commit_duration_seconds',
    help: 'Time one storage commit took, by result (ok or failed).',
    labelNames: ['result'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const byKey = new client.Counter({
    name: 'animal_store_key_requests_total',
    help: 'Answers to authenticated requests, by the calling key’s name (its fingerprint when it has none); never the key.',
    labelNames: ['key'] as const,
    registers,
  });
  const services: PetService[] = [];
  new client.Gauge({
    name: 'animal_store_sync_kiosk_last_contact_timestamp_seconds',
    help: 'Hub: when each sync key (a kiosk, by its name) last leased, pushed or pulled here, since this server started.',
    labelNames: ['kiosk'] as const,
    registers,
    // Read from the fleet view at each scrape; a key that never called since the start has no value.
    async collect() {
      this.reset();
      const latest = new Map<string, number>();
      for (const service of services) {
        for (const kiosk of await service.kiosks()) {
          const times = [kiosk.lastLease, kiosk.lastPush, kiosk.lastPull].filter((time) => time !== null).map((time) => Date.parse(time));
          if (times.length > 0) latest.set(kiosk.name, Math.max(latest.get(kiosk.name) ?? 0, ...times));
        }
      }
      for (const [kiosk, time] of latest) this.set({ kiosk }, time / 1000);
    },
  });
  new client.Counter({
    name: 'animal_store_deprecated_calls_total',
    help: 'Calls of the deprecated GET /pets/{petId}, by API key fingerprint (SHA-256, first 12 hex digits).',
    labelNames: ['key_fingerprint'] as const,
    registers,
    // Read from the service at each scrape: it keeps the counts, per key, for its own warnings.
    collect() {
      this.reset();
      for (const service of services) {
        for (const use of service.deprecatedUses()) this.inc({ key_fingerprint: use.keyFingerprint }, use.calls);
      }
    },
  });
  const droppedLogLines: Array<() => Readonly<Record<string, number>>> = [];
  new client.Counter({
    name: 'animal_store_log_lines_dropped_total',
    help: 'Log lines dropped because their stream (stdout or stderr) could not keep up, by stream.',
    labelNames: ['stream'] as const,
    registers,
    // Read from the log at each scrape: it counts what it drops, metrics or not.
    collect() {
      this.reset();
      for (const read of droppedLogLines) {
        for (const [stream, lines] of Object.entries(read())) this.inc({ stream }, lines);
      }
    },
  });

  const syncStatuses: Array<() => Promise<SyncStatus>> = [];
  addSyncMetrics(client, registers, syncStatuses);

  return {
    recordRequest({ operation = 'none', status, milliseconds, key }) {
      requests.inc({ operation, status: String(status) });
      if (key !== undefined) byKey.inc({ key });
      latency.observe({ operation }, milliseconds / 1000);
    },
    observeCommit({ size, seconds, ok }) {
      batchSize.observe(size);
      commitLatency.observe({ result: ok ? 'ok' : 'failed' }, seconds);
    },
    watch(service) {
      services.push(service);
    },
    watchDroppedLogLines(read) {
      droppedLogLines.push(read);
    },
    watchSync(status) {
      syncStatuses.push(status);
    },
    exposition: async () => ({ body: await registry.metrics(), contentType: registry.contentType }),
  };
};
