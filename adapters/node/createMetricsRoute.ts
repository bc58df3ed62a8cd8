/** @module `GET /metrics`: the Prometheus scrape, behind the same bearer keys as the interface. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { createBearerCheck } from '../../core/auth/bearer.js';
import type { Sha256 } from '../../core/digest.js';
import { createResponder } from '../../core/http/createResponder.js';
import type { PrometheusMetrics } from './createPrometheusMetrics.js';

/** Where the metrics are served: beside `/healthz`, outside the base path. */
export const METRICS_PATH = '/metrics';

/** What the route needs beside the metrics. */
export interface MetricsRouteOptions {
  /** The API keys the service accepts, and its shortest key. */
  keys: readonly string[];
  minimumKeyLength?: number;
  sha256: Sha256;
  /** The Response class the server answers with. */
  Response: typeof Response;
  /** Reports a failure of the scrape itself; the scraper sees a bare 500. */
  reportError(message: string, error: unknown): void;
}

/**
 * Answers `GET` and `HEAD /metrics` with the metrics, to a caller with a valid key (a
 * Prometheus scrape config's `authorization` section sends one), with the service's Error
 * bodies otherwise. Resolves with `undefined` for every other path.
 */
export const createMetricsRoute = (metrics: PrometheusMetrics, options: MetricsRouteOptions) => {
  const checkBearer = createBearerCheck(options.keys, options.sha256, options.minimumKeyLength);
  const withBody = createResponder(options.Response, options.reportError);
  const withoutBody = createResponder(options.Response, options.reportError, { bodies: false });
  return async (request: Request, path: string): Promise<Response | undefined> => {
    if (path !== METRICS_PATH) return undefined;
    const respond = request.method === 'HEAD' ? withoutBody : withBody;
    try {
      await checkBearer(request.headers.get('authorization'));
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use GET.`, {
          headers: { allow: 'GET, HEAD' },
        });
      }
      const { body, contentType } = await metrics.exposition();
      return respond.body(200, body, { 'content-type': contentType, 'cache-control': 'no-store' });
    } catch (error) {
      return respond.error(error, `${request.method} ${METRICS_PATH}`);
    }
  };
};
