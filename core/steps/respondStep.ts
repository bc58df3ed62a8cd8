/** @module The first step: every answer and every error of a request passes through it once. */
import { isAnimalStoreError } from '../AnimalStoreError.js';
import type { StorageFailureLog } from '../createStorageFailureLog.js';
import { whenSettled } from '../MaybePromise.js';
import type { AccessLogEntry, PetServiceLogger } from '../PetServiceLogger.js';
import type { Route } from '../routing/createRouter.js';
import type { Step } from './composeSteps.js';
import type { RequestState } from './RequestState.js';

/** What the respond step reports to. */
export interface RespondStepOptions {
  logger: PetServiceLogger;
  storageFailures: StorageFailureLog;
  /** The health probe's route, which answers the storage's failures without reporting them. */
  health: Route;
  /** When a request started, for its duration in the access log. */
  startOf(state: RequestState): number;
  /** The clock durations are read from: the same as `startOf`'s. */
  timer(): number;
}

/**
 * Creates the step that turns whatever the later steps throw into the request's Error
 * answer (the responder's one error path, with the headers learnt so far), then sees every
 * answer once: a 201 tells the storage works, and the access log gets its line.
 */
export const respondStep = ({ logger, storageFailures, health, startOf, timer }: RespondStepOptions): Step => {
  const failed = (state: RequestState, error: unknown): Response => {
    // Requests that needed the storage report its failure; the health probe only answers it.
    if (isAnimalStoreError(error) && error.code === 'storage_unavailable' && state.match?.route !== health) storageFailures.failed(error);
    return state.respond.error(error, `${state.request.method} ${state.path}`, state.headers);
  };
  const finished = (state: RequestState, started: number, response: Response): Response => {
    if (response.status === 201) storageFailures.succeeded();
    if (logger.access) {
      const { request, method, match, path, requestId, caller } = state;
      const operation = match && (method === 'GET' || method === 'POST') ? match.route.operations?.[method] : undefined;
      const entry: AccessLogEntry = { method: request.method, path, status: response.status, milliseconds: timer() - started, operation };
      if (requestId !== undefined) entry.requestId = requestId;
      if (caller !== undefined) entry.key = caller.name;
      logger.access(entry);
    }
    return response;
  };
  return (state, next) => {
    const started = logger.access ? startOf(state) : 0;
    return whenSettled(
      next,
      (response) => finished(state, started, response),
      (error: unknown) => finished(state, started, failed(state, error)),
    );
  };
};
