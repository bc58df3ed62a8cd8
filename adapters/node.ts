/**
 * @module animal-store/node: the standalone server and the storages that need Node (the
 * JSON data file), beside the in-memory one.
 */
export { createMemoryStorage, type MemoryStorage, type MemoryStorageOptions } from '../storage/createMemoryStorage.js';
export { DataFileError, DataFileLockedError, type DataFileOwner } from '../storage/durableFile/index.js';
export type { CommitObserver, CommitReport } from '../storage/GroupCommit.js';
export { type JsonFileStorage, type JsonFileStorageOptions, openJsonFileStorage } from '../storage/jsonFile/openJsonFileStorage.js';
export { createPrometheusMetrics, MissingMetricsLibraryError, type PrometheusMetrics } from './node/createPrometheusMetrics.js';
export { findSwaggerUiAssets } from './node/findSwaggerUiAssets.js';
export {
  type AnimalStoreServer,
  DEFAULT_EXEMPT_ADDRESSES,
  nodeSha256,
  SERVE_LIMIT_DEFAULTS,
  type ServeLimit,
  type ServeOptions,
  serve,
} from './node/serve.js';
export {
  LEASE_LOW_WATER,
  LEASE_WAIT_MILLISECONDS,
  type Replicator,
  type ReplicatorOptions,
  startReplicator,
} from './sync/startReplicator.js';
