/**
 * @module How the bench's references word their answers: the same headers, entity tags and
 * page cursors as our service on the answers the bench measures (a list page, an animal, a
 * create), made the cheapest way Node allows. `referenceWork.ts` decides what to answer.
 */
import { hash } from 'node:crypto';

/** An answer: the HTTP layer writes exactly these headers (then Content-Length, Date and Connection) and this body. */
export interface ReferenceAnswer {
  status: number;
  /** A fresh record per answer: `@whatwg-node/fetch`'s Response adds Content-Length to the record it is given. */
  headers: Record<string, string>;
  /** `undefined` for a 304. */
  body: string | undefined;
}

/** The base path of the operations. */
export const BASE = '/v1';

const CODES: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  503: 'storage_unavailable',
};

// The headers our service sends on every success and every error (core/http/createResponder.ts).
const SUCCESS_TYPE = 'application/json';
const SUCCESS_CACHING = 'private, no-cache';
const FAILURE_CACHING = 'no-store';
const NOSNIFF = 'nosniff';

// The command line gives every answer an X-Request-Id (core/createRequestIds.ts): a random
// prefix for the process and a counter. The references make theirs the same way.
const REQUEST_ID_PREFIX = hash('sha256', String(Math.random()), 'buffer').toString('base64url', 0, 6);
let requestCounter = 0;
const requestId = () => `${REQUEST_ID_PREFIX}-${++requestCounter}`;

/** getPet's deprecation headers, as our service sends them (core/http/deprecation.ts). */
const DEPRECATION = '@1764547200';
const SUNSET = 'Thu, 05 Dec 2030 00:00:00 GMT';
const SUCCESSOR_LINK = `<${BASE}/pets>; rel="successor-version", <${BASE}/docs#deprecation>; rel="deprecation"; type="text/html"`;

/** A 200, 201 or 304 with the success headers, then the answer's own in the order our service writes them. */
const success = (status: number, body: string | undefined, own: Record<string, string>): ReferenceAnswer => {
  const headers: Record<string, string> =
    status === 304 ? { 'cache-control': SUCCESS_CACHING } : { 'content-type': SUCCESS_TYPE, 'cache-control': SUCCESS_CACHING };
  headers['x-content-type-options'] = NOSNIFF;
  headers['x-request-id'] = requestId();
  for (const name in own) headers[name] = own[name]!;
  return { status, headers, body };
};

/** An Error body with the failure headers; `extra` after them (WWW-Authenticate, Allow). */
export const error = (status: number, message: string, extra?: Record<string, string>, code = CODES[status]): ReferenceAnswer => {
  const headers: Record<string, string> = {
    'content-type': SUCCESS_TYPE,
    'cache-control': FAILURE_CACHING,
    'x-content-type-options': NOSNIFF,
  };
  headers['x-request-id'] = requestId();
  if (extra) for (const name in extra) headers[name] = extra[name]!;
  return { status, headers, body: JSON.stringify({ code: code ?? 'internal_error', message, status }) };
};

/** The strong ETag our service gives an answer: SHA-256 of the body (and `\n` and the Link header), 16 bytes in base64url. */
const entityTag = (text: string, link: string | undefined) =>
  `"${hash('sha256', link === undefined ? text : `${text}\n${link}`, 'buffer').toString('base64url', 0, 16)}"`;

/** Tells whether If-None-Match names `tag` (or is `*`), weakly, as our service compares. */
const matches = (ifNoneMatch: string | null | undefined, tag: string) => {
  if (ifNoneMatch === undefined || ifNoneMatch === null) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const match of ifNoneMatch.matchAll(/(?:W\/)?"([^"]*)"/g)) if (`"${match[1]}"` === tag) return true;
  return false;
};

/** A list page: 200 with its ETag and Link, or 304 when the client holds it. */
export const page = (text: string, link: string | undefined, ifNoneMatch: string | null | undefined): ReferenceAnswer => {
  const etag = entityTag(text, link);
  const own: Record<string, string> = link === undefined ? { etag } : { etag, link };
  return matches(ifNoneMatch, etag) ? success(304, undefined, own) : success(200, text, own);
};

/** getPet's answer: 200 with the deprecation headers and its ETag, or 304. */
export const animal = (text: string, ifNoneMatch: string | null | undefined): ReferenceAnswer => {
  const etag = entityTag(text, undefined);
  const own = { deprecation: DEPRECATION, sunset: SUNSET, link: SUCCESSOR_LINK, etag };
  return matches(ifNoneMatch, etag) ? success(304, undefined, own) : success(200, text, own);
};

/** getPet's errors carry its deprecation headers too, after their own (Allow). */
export const animalError = (status: number, message: string, extra?: Record<string, string>) =>
  error(status, message, { ...extra, deprecation: DEPRECATION, sunset: SUNSET, link: SUCCESSOR_LINK });

/** A create's 201 with its Location. */
export const created = (text: string, id: number): ReferenceAnswer => success(201, text, { location: `${BASE}/pets/${id}` });

/**
 * Page cursors as our service seals them (core/catalogue/createCursorCodec.ts, with its default
 * secret): `base64url(payload).base64url(SHA-256(secret NUL payload)[0..12])`, the last
 * 1,024 made kept, since the same few are asked for again and again.
 */
export const createCursors = (secret = 'animal-store/cursor/v1') => {
  const made = new Map<string, string>();
  const seal = (payload: string) => hash('sha256', `${secret}\u0000${payload}`, 'buffer').toString('base64url', 0, 12);
  return {
    encode(after: number, status: string | undefined): string {
      const payload = `1:${after}:${status ?? ''}`;
      let cursor = made.get(payload);
      if (cursor === undefined) {
        cursor = `${Buffer.from(payload, 'latin1').toString('base64url')}.${seal(payload)}`;
        if (made.size >= 1024) made.delete(made.keys().next().value!);
        made.set(payload, cursor);
      }
      return cursor;
    },
    /** The id a cursor continues after, or undefined for a cursor not made for this status. */
    decode(cursor: string, status: string | undefined): number | undefined {
      const dot = cursor.indexOf('.');
      if (cursor.length > 128 || dot < 0 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
      const payload = Buffer.from(cursor.slice(0, dot), 'base64url').toString('latin1');
      const match = /^1:([1-9][0-9]{0,15}):([a-z]*)$/.exec(payload);
      if (!match || (match[2] === '' ? undefined : match[2]) !== status) return undefined;
      // Only the spelling encode makes: the same payload and seal, byte for byte.
      return cursor === `${Buffer.from(payload, 'latin1').toString('base64url')}.${seal(payload)}` ? Number(match[1]) : undefined;
    },
  };
};
