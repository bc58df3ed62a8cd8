/** @module `GET /metrics`: the Prometheus scrape, behind the same bearer keys as the interface. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { BearerCheck } from '../../core/auth/createBearerCheck.js';
import { createResponder } from '../../core/http/createResponder.js';
import type { PrometheusMetrics } from './createPrometheusMetrics.js';

/** Where the metrics are served: beside `/healthz`, outside the base path. */
export const METRICS_PATH = '/metrics';

/** What the route needs beside the metrics. */
export interface MetricsRouteOptions {
  /** The service's bearer check (`service.keys.check`): the keys in force, whatever their changes. */
  check: BearerCheck;
  /** The Response class the server answers with. */
  Response: typeof Response;
  /** Reports a failure of the scrape itself; the scraper sees a bare 500. */
  reportError(message: string, error: unknown): void;
}

/**
 * Answers `GET` and `HEAD /metrics` with the metrics, to a caller with a valid key of scope `read` (a
 * Prometheus scrape config's `authorization` section sends one), with the service's Error
 * bodies otherwise. Resolves with `undefined` for every other path.
 */
export const createMetricsRoute = (metrics: PrometheusMetrics, options: MetricsRouteOptions) => {
  const withBody = createResponder(options.Response, options.reportError);
  const withoutBody = createResponder(options.Response, options.reportError, { bodies: false });
  return async (request: Request, path: string): Promise<Response | undefined> => {
    if (path !== METRICS_PATH) return undefined;
    const respond = request.method === 'HEAD' ? withoutBody : withBody;
    try {
      const caller = await options.check(request.headers.get('authorization'));
      // Metrics name the fleet's keys: a key that may read the catalogue may read them.
      if (!caller.scopes.includes('read')) {
        throw new AnimalStoreError(
          'forbidden',
          `This API key may not read the metrics: it lacks the scope read (it has ${caller.scopes.join(', ')}).`,
        );
      }
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
