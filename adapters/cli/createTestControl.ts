/**
 * @module `--test-mode`: the endpoints an end-to-end suite (Playwright, Cypress) drives a
 * running server with, over the testing entry's own pieces: `createTestCatalogue`'s reset
 * and its `withFaults` injection, not a second implementation.
 */
import * as v from 'valibot';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { ApiKey } from '../../core/auth/apiKeys.js';
import { createBearerCheck } from '../../core/auth/createBearerCheck.js';
import type { Sha256 } from '../../core/digest.js';
import { createResponder } from '../../core/http/createResponder.js';
import { readJsonBody } from '../../core/http/readJsonBody.js';
import { ERROR_STATUS, type ErrorCode } from '../../core/schemas/ErrorBody.js';
import { sleep } from '../../core/sleep.js';
import { validate } from '../../core/validate.js';
import type { TestCatalogue } from '../testing/createTestCatalogue.js';

/** Where the endpoints live: beside `/healthz`, outside the base path. */
export const TEST_PATHS = { reset: '/_test/reset', faults: '/_test/faults' } as const;

/** A `withFaults` Fault, as `POST /_test/faults` takes it. */
const FaultBody = v.object({
  operation: v.picklist(['listPets', 'createPet', 'getPet'], 'must be listPets, createPet or getPet'),
  latency: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000, 'must be at most 600000 (ten minutes)'))),
  error: v.optional(v.picklist(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]], 'must be an error code of the interface')),
  message: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  times: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  retryAfterSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});

/** What the endpoints need beside the catalogue. */
export interface TestControlOptions {
  /** The keys the server accepts: the endpoints take the same ones. */
  keys: readonly (string | ApiKey)[];
  sha256: Sha256;
  /** Milliseconds every other answer waits (`--delay`); 0 for none. */
  delay: number;
  /** Reports a failure of an endpoint itself; the caller sees a bare 500. */
  reportError(message: string, error: unknown): void;
}

const NO_CONTENT = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/**
 * Makes `serve()`'s `intercept` for test mode, each endpoint behind the API keys:
 *
 * - `POST /_test/reset`: back to the seed, ids included, and no faults (204);
 * - `POST /_test/faults` with a Fault (`{"operation":"listPets","error":"storage_unavailable","times":1}`,
 *   `{"operation":"createPet","latency":2000}`): injected from now on (204);
 * - `DELETE /_test/faults`: every fault removed (204).
 *
 * Mistakes answer the interface's Error bodies. Every other request waits `delay`
 * milliseconds, then goes on to the service.
 */
export const createTestControl = (catalogue: TestCatalogue, options: TestControlOptions) => {
  const checkBearer = createBearerCheck(options.keys, options.sha256);
  const respond = createResponder(Response, options.reportError);
  const routes: Record<string, Record<string, (request: Request) => Promise<void>>> = {
    [TEST_PATHS.reset]: { POST: async () => catalogue.reset() },
    [TEST_PATHS.faults]: {
      POST: async (request) => {
        const fault = validate(FaultBody, await readJsonBody(request), {
          what: 'The fault',
          rootName: 'fault',
          knownKeys: FaultBody.entries,
        });
        if (fault.latency === undefined && fault.error === undefined) {
          const message = 'needs a latency, an error or both';
          throw new AnimalStoreError('validation_failed', `The fault ${message}.`, { details: [{ path: 'fault', message }] });
        }
        catalogue.inject(fault);
      },
      DELETE: async () => catalogue.clearFaults(),
    },
  };
  return async (request: Request): Promise<Response | undefined> => {
    const path = new URL(request.url).pathname;
    if (!path.startsWith('/_test/')) {
      if (options.delay > 0) await sleep(options.delay);
      return undefined;
    }
    try {
      await checkBearer(request.headers.get('authorization'));
      const methods = routes[path];
      if (!methods) {
        throw new AnimalStoreError(
          'not_found',
          `There is nothing at ${path.slice(0, 64)}; test mode has ${Object.values(TEST_PATHS).join(' and ')}.`,
        );
      }
      const handler = methods[request.method];
      if (!handler) {
        const allow = Object.keys(methods).join(', ');
        throw new AnimalStoreError('method_not_allowed', `${request.method.slice(0, 16)} is not allowed here; use ${allow}.`, {
          headers: { allow },
        });
      }
      await handler(request);
      return new Response(null, { status: 204, headers: NO_CONTENT });
    } catch (error) {
      return respond.error(error, `${request.method} ${path}`);
    }
  };
};
