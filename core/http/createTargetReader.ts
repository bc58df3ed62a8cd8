/** @module Reads the path and search of request URLs, with the URL parser only where it is needed. */
import { AnimalStoreError } from '../AnimalStoreError.js';

/** Where a request goes: its URL's path, and its search (`?…`, or `''` without a query). */
export interface RequestTarget {
  path: string;
  search: string;
}

/**
 * The request's URL, parsed. An adapter builds it from the Host header and the request
 * target, so a URL that does not parse means a Host that is not a host: the client's mistake.
 */
const parseRequestUrl = (url: string): URL => {
  try {
    return new URL(url);
  } catch (cause) {
    throw new AnimalStoreError(
      'validation_failed',
      'The request names no valid host; send a Host header such as "Host: example.com:8080".',
      {
        details: [{ path: 'Host', message: 'must be a host name or address, with an optional port' }],
        cause,
      },
    );
  }
};

/**
 * A path and query the URL parser hands back exactly as written: characters it neither
 * escapes nor decodes (no `%`, space, quote, `<`, `>` or `#`; no `'` in the query), and no
 * segment that starts with a dot (`.` and `..` are removed by the parser, so they are left to it).
 */
const PLAIN_TARGET = /^(\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)(\?[A-Za-z0-9\-._~!$&()*+,;=:@/?%]*)?$/;

/**
 * Creates the reader of request URLs. Every request of a server names the same origin, so
 * an origin is checked by the URL parser once (a host that is not one is the 400 above),
 * and a plain path and query after an origin found valid are read as written, which is
 * what the parser would give: parsing a URL cost a request as much as all of its routing.
 * Anything else goes through the parser.
 */
export const createTargetReader = (): ((url: string) => RequestTarget) => {
  let validOrigin: string | undefined;
  return (url: string): RequestTarget => {
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    if (pathStart > 0 && url.slice(0, pathStart) === validOrigin) {
      const plain = PLAIN_TARGET.exec(url.slice(pathStart));
      const path = plain?.[1];
      if (path !== undefined && !path.includes('/.')) {
        const search = plain![2];
        return { path, search: search === undefined || search === '?' ? '' : search };
      }
    }
    const parsed = parseRequestUrl(url);
    if (pathStart > 0) validOrigin = url.slice(0, pathStart);
    return { path: parsed.pathname, search: parsed.search };
  };
};
