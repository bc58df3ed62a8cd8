/**
 * @module Words a failed call to the catalogue for the person at the kiosk: what did not
 * happen, why in plain words, and what to do next. The package's client reports every
 * failure as an AnimalStoreClientError; its message names fields (`categoryId`) and limits
 * (9007199254740991) for programmers, so the page never shows it. It reads only the error's
 * `status` (0 when no answer came), `code` and the `path` of each of its `details`, which are
 * stable, and looks at what the form sent to say which rule was broken.
 */
import { isAnimalStoreClientError } from './animal-store-client.js';

/** What the page reads of a failed call. @typedef {{ code: string, status: number, details?: { path: string, message: string }[] }} ClientFailure */

/** The longest name the catalogue accepts, in characters (decisions: "1 to 200 characters"). */
const NAME_MAX_LENGTH = 200;

/** What the form sent, as typed. @typedef {{ name: string, categoryId: string }} SentForm */

/**
 * One sentence for one field the catalogue refused, from the field's name and what was typed.
 * @param {string} path @param {SentForm} sent @returns {string}
 */
const describeField = (path, sent) => {
  if (path === 'name') {
    if (sent.name.trim() === '') return "Please enter the animal's name.";
    if ([...sent.name].length > NAME_MAX_LENGTH) return `The name is too long. Please keep it to ${NAME_MAX_LENGTH} characters or fewer.`;
    return 'The name contains characters that cannot be used. Please type it again with letters, numbers and spaces.';
  }
  if (path === 'categoryId') {
    const typed = sent.categoryId.trim();
    if (typed === '') return 'Please enter the category number.';
    if (/^\d+$/.test(typed) && Number(typed) > Number.MAX_SAFE_INTEGER) return 'That category number is too large. Please check it.';
    return 'Category must be a whole number of 1 or more.';
  }
  if (path === 'status') return 'Please choose a status from the list.';
  return 'Something else in the form was not accepted. Please reload the page and try again.';
};

/** Why no answer came, after every retry: too slow, or not reachable. @param {ClientFailure} failure @returns {string} */
const describeSilence = (failure) =>
  failure.code === 'timeout' ? 'The catalogue is taking too long to answer' : 'The catalogue cannot be reached right now';

/**
 * Why a call failed and what to do, after the sentence saying what did not happen.
 * @param {ClientFailure} failure @returns {string}
 */
const describeCause = (failure) => {
  const { status, code } = failure;
  if (status === 0) return `${describeSilence(failure)}. Please check the connection and try again in a moment.`;
  if (status === 401) return "This kiosk's key was not accepted. Please ask a manager to check the kiosk settings.";
  if (status === 429 || code === 'rate_limited') return 'The catalogue is busy. Please wait a moment and try again.';
  if (status >= 500) return 'The catalogue is not answering properly right now. Please try again in a moment.';
  return 'Something went wrong between the kiosk and the catalogue. Please reload the page and try again; if it keeps happening, ask a manager.';
};

/**
 * Words a failed list call. A refused request (400: a page's cursor the catalogue no longer
 * accepts) is retried from the first page, which the sentence says.
 * @param {unknown} failure @returns {string}
 */
export const describeListFailure = (failure) => {
  if (!isAnimalStoreClientError(failure)) return 'The animals could not be shown. Please reload the page.';
  if (failure.status === 400) return 'This page of the list could not be shown. Press "Try again" to start again from the first page.';
  return `The animals could not be loaded. ${describeCause(failure)}`;
};

/**
 * Words a failed create: a sentence, and for a refused form one sentence per field to fix.
 * @param {unknown} failure @param {SentForm} sent
 * @returns {{ message: string, fields: { path: string, message: string }[] }}
 */
export const describeCreateFailure = (failure, sent) => {
  if (!isAnimalStoreClientError(failure))
    return { message: 'The animal may not have been added. Please reload the page to check.', fields: [] };
  if (failure.code === 'validation_failed') {
    const paths = [...new Set((failure.details ?? []).map((detail) => detail.path))];
    return {
      message: 'The animal was not added. Please check the form:',
      fields: paths.map((path) => ({ path, message: describeField(path, sent) })),
    };
  }
  // Without an answer, even after the client's retries, nobody knows whether the catalogue
  // stored it: say so rather than guess. Sending the same animal again is safe (same key).
  if (failure.status === 0) {
    return {
      message: `${describeSilence(failure)}, so the animal may not have been added. Please check the list, and try again in a moment if it is missing.`,
      fields: [],
    };
  }
  if (failure.code === 'idempotency_conflict') {
    return { message: 'The catalogue is still adding this animal. Please check the list in a moment before adding it again.', fields: [] };
  }
  return { message: `The animal was not added. ${describeCause(failure)}`, fields: [] };
};
