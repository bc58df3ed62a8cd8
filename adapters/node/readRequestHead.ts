/**
 * @module Reads what a `node:http` request's head says about where it goes, trusting only the
 * request target for that: the Host header names the server, never the path.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv6 } from 'node:net';
import type { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { validationFailed } from './adapterErrorAnswer.js';

/**
 * Whether a request's head frames no body: neither Content-Length nor Transfer-Encoding, as
 * `curl -X POST` sends. Such a request has none (RFC 9112 §6.3), and is handed to the
 * service with a null body, as fetch runtimes hand it over, not an empty stream.
 */
export const framesNoBody = (headers: IncomingHttpHeaders): boolean =>
  headers['content-length'] === undefined && headers['transfer-encoding'] === undefined;

/** The origin every Request handed to the service is built on: only its path and query are the client's. */
export const FIXED_ORIGIN = 'http://localhost';

/** A request head that can be served: the path and query of its target, always starting with `/`. */
export type RequestHead = { pathAndQuery: string; answer?: undefined } | { pathAndQuery?: undefined; answer: AnimalStoreError };

// RFC 3986 reg-name (which covers IPv4 addresses): unreserved, sub-delims and %XX escapes only.
const REG_NAME = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const IPV_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

/** Tells whether a Host value is `host[:port]` as RFC 9110 §7.2 defines it, with a port up to 65535. */
export const isValidHost = (value: string): boolean => {
  let host = value;
  let port: string | undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return false;
    const literal = value.slice(1, end);
    if (!isIPv6(literal) && !IPV_FUTURE.test(literal)) return false;
    const rest = value.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return false;
    host = '';
    port = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = value.lastIndexOf(':');
    if (colon >= 0) {
      host = value.slice(0, colon);
      port = value.slice(colon + 1);
    }
  }
  if (!REG_NAME.test(host)) return false;
  return port === undefined || port === '' || (/^[0-9]{1,5}$/.test(port) && Number(port) <= 65535);
};

/** How many Authorization and Host lines `rawHeaders` (name, value, name, value, …) holds, and the first Host. */
const countLines = (rawHeaders: readonly string[]) => {
  let authorizations = 0;
  let hosts = 0;
  let host: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorizations++;
    else if (name.length === 4 && name.toLowerCase() === 'host' && hosts++ === 0) host = rawHeaders[i + 1]!;
  }
  return { authorizations, hosts, host };
};

// A path and query of plain characters, which a URL parser would leave as they are (bar the
// dot segments, which the service's own parse resolves the same way).
const PLAIN_ORIGIN_FORM = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/;

/**
 * The path and query of a request target (RFC 9112 §3.2): origin-form (`/v1/pets?limit=2`)
 * as it is, absolute-form (`http://example.com/v1/pets`) reduced to its path and query;
 * `undefined` for anything else (asterisk-form, authority-form, garbage).
 */
export const targetPathAndQuery = (target: string): string | undefined => {
  if (PLAIN_ORIGIN_FORM.test(target)) return target;
  let url: URL;
  try {
    if (target.startsWith('/')) {
      // Appended to a fixed origin, never resolved against one: `//evil.example/x` stays a path.
      url = new URL(`${FIXED_ORIGIN}${target}`);
      if (url.origin !== FIXED_ORIGIN) return undefined;
    } else {
      if (!/^https?:\/\//i.test(target)) return undefined;
      url = new URL(target);
    }
  } catch {
    return undefined;
  }
  return `${url.pathname}${url.search}`;
};

/**
 * The last Host a server found valid, one per server (`createRequestListener`, the Express
 * middleware): its clients name it the same way request after request, so checking a Host
 * is one string comparison but for the first and for a change.
 */
export interface KnownHost {
  last: string | undefined;
}

const quoteShort = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * Checks a request head before anything is served from it: the target must be origin- or
 * absolute-form, and an HTTP/1.1 request needs exactly one well-formed Host (RFC 9112 §3.2;
 * for an absolute-form target, whose authority stands in for it, its value is ignored).
 * At most one Authorization. `node:http` keeps only the first of two Authorization or Host
 * lines, so duplicates are counted in `rawHeaders`.
 *
 * @param target The request target as received (`req.url`, or `req.originalUrl` in Express).
 * @param rawHeaders The header lines as received (`req.rawHeaders`).
 * @param httpVersion The request's HTTP version (`req.httpVersion`), such as `1.1`.
 * @param known The server's last valid Host, read and updated here.
 */
export const readRequestHead = (
  target: string,
  rawHeaders: readonly string[],
  httpVersion = '1.1',
  known: KnownHost = { last: undefined },
): RequestHead => {
  const pathAndQuery = targetPathAndQuery(target);
  if (pathAndQuery === undefined) {
    return {
      answer: validationFailed(
        'request-target',
        `The request target ${quoteShort(target)} is not a path such as /v1/pets, nor an http URL; send the path of what you want.`,
      ),
    };
  }
  const lines = countLines(rawHeaders);
  if (lines.authorizations > 1) {
    return { answer: validationFailed('Authorization', 'The request has more than one Authorization header; send exactly one.') };
  }
  if (lines.hosts > 1) return { answer: validationFailed('Host', 'The request has more than one Host header; send exactly one.') };
  // HTTP/1.0 may leave it out; HTTP/1.1 may not (node:http's own check is off, for its empty answer).
  if (lines.hosts === 0 && httpVersion !== '1.0') {
    return { answer: validationFailed('Host', 'An HTTP/1.1 request needs a Host header naming the server, such as example.com:8080.') };
  }
  const host = lines.host ?? '';
  if (target.startsWith('/') && host !== known.last) {
    if (isValidHost(host)) known.last = host;
    else
      return {
        answer: validationFailed(
          'Host',
          `The Host header ${quoteShort(host)} is not a host name or address with an optional port, such as example.com:8080.`,
        ),
      };
  }
  return { pathAndQuery };
};
