/** @module What an operator and a client are told when the data file cannot be used after it changed on disk. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { DataFileError, systemErrorReason } from '../durableFile/index.js';

/**
 * Why the file cannot be used now, after it changed on disk: what an operator reads (in
 * logs, on /healthz, as the cause of a refused create). The file is always named.
 */
export const problemOf = (name: string, error: unknown): DataFileError => {
  if (error instanceof DataFileError && error.problem !== undefined) {
    // The same problem said for a file in use: it takes the place of the reading's error
    // (and its cause), rather than wrapping it, so the problem is one error deep.
    return new DataFileError(
      name,
      `The data file ${name} was changed by someone else and cannot be used: ${error.problem}. Creates are refused until it is repaired; reads serve its last valid content.`,
      { cause: error.cause, problem: error.problem },
    );
  }
  if (error instanceof DataFileError) return error;
  const { code, reason } = systemErrorReason(error);
  if (code === 'ENOENT') {
    return new DataFileError(
      name,
      `The data file ${name} was removed or moved away by someone else. Creates are refused until it is back; reads serve its last content.`,
      { cause: error },
    );
  }
  return new DataFileError(name, `The data file ${name} cannot be read: ${reason}.`, { cause: error });
};

/** What a client is told when the file cannot be used (the cause, for the operator, names the file). */
export const refusal = (problem: DataFileError): AnimalStoreError =>
  new AnimalStoreError(
    'storage_unavailable',
    problem.problem === undefined
      ? 'The data file cannot be used now, so the animal was not stored. Try again later.'
      : `The data file was edited and is not valid now (${problem.problem}), so the animal was not stored. Try again once it is repaired.`,
    { cause: problem },
  );
