/** @module A failure in a few words, for an operator. */

/**
 * The message of an error, for logs and health reasons: the first of an AggregateError's
 * errors (Node reports a refused connection to every address of `localhost` as one, with
 * an empty message), the name when there is no message.
 */
export const reasonOf = (error: unknown): string => {
  if (error instanceof AggregateError && error.errors.length > 0 && !error.message) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
};
