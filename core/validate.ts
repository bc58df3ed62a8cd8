/** @module Turns valibot results into data or one validation_failed error. */
import * as v from 'valibot';
import { AnimalStoreError } from './AnimalStoreError.js';
import type { ErrorDetail } from './schemas/ErrorBody.js';

/** How many problems a validation message names; the details list them all (up to the Error body's cap). */
const SUMMARISED_DETAILS = 5;

/** Names an issue's place: the dotted field path, or `rootName` for the value as a whole. */
const issuePathOf = (issue: v.BaseIssue<unknown>, rootName: string): string => {
  const keys = issue.path?.map((item) => String(item.key)) ?? [];
  return keys.length === 0 ? rootName : keys.join('.');
};

const NO_DETAILS: ErrorDetail[] = [];

/** Lists own keys of an object that a strict schema does not know, each as a detail. */
export const unknownKeyDetails = (input: unknown, known: Record<string, unknown>): ErrorDetail[] => {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return NO_DETAILS;
  const unknown = Object.keys(input).filter((key) => !Object.hasOwn(known, key));
  // The common case, every key known, makes no message.
  if (unknown.length === 0) return NO_DETAILS;
  const allowed = Object.keys(known).join(', ');
  return unknown.map((key) => ({
    path: key.length > 32 ? `${key.slice(0, 32)}…` : key,
    message: `is not a known field (allowed: ${allowed})`,
  }));
};

/**
 * Parses `input` with `schema`, or throws one validation_failed error with one detail per
 * problem. Unknown keys are reported here, each by name, rather than by valibot, which
 * stops at the first and is blind to keys such as `__proto__` that objects inherit.
 */
export const validate = <S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  { what, rootName, knownKeys }: { what: string; rootName: string; knownKeys?: Record<string, unknown> },
): v.InferOutput<S> => {
  const unknown = knownKeys ? unknownKeyDetails(input, knownKeys) : NO_DETAILS;
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success && unknown.length === 0) return result.output;
  const issues = result.success ? [] : result.issues;
  const details: ErrorDetail[] = [
    ...unknown,
    ...issues
      .filter((issue) => !(knownKeys && issue.kind === 'schema' && issue.expected === 'never'))
      .map((issue) => ({ path: issuePathOf(issue, rootName), message: issue.message })),
  ];
  // A body of thousands of unknown keys must not make a message of thousands of clauses.
  const named = details.slice(0, SUMMARISED_DETAILS).map((detail) => `${detail.path} ${detail.message}`);
  if (details.length > SUMMARISED_DETAILS) named.push(`and ${details.length - SUMMARISED_DETAILS} more problems`);
  throw new AnimalStoreError('validation_failed', `${what} is not valid: ${named.join('; ')}.`, { details });
};
