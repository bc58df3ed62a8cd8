/** @module Request ids: the caller's when it sent a safe one, else a new one, to follow a request through logs. */
import { toBase64Url } from './base64url.js';

/** Gives requests ids. */
export interface RequestIds {
  /** The id of a request whose `X-Request-Id` header is `sent` (or `null`). */
  idOf(sent: string | null): string;
}

/** What an id a caller sends may look like: short, and nothing a log line or a header could be fooled by. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Creates request ids. A new id is this process's random prefix and a counter
 * (`kF3x9Q-17`): unique across restarts and instances, cheaper than fresh randomness per
 * request, and in order within one process.
 */
export const createRequestIds = (): RequestIds => {
  const prefix = toBase64Url(crypto.getRandomValues(new Uint8Array(6)));
  let counter = 0;
  return {
    idOf: (sent) => (sent !== null && SAFE_ID.test(sent) ? sent : `${prefix}-${++counter}`),
  };
};
