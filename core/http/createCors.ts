/** @module Cross-origin access for named origins (browser kiosks); off by default. */

/** The CORS policy: which origins may call the API from a browser. */
export interface CorsOptions {
  /** Origins allowed, exactly as browsers send them (`https://kiosk.example`), or `*` for any. */
  origins: readonly string[];
}

/** Headers a browser script may read from our answers. */
const EXPOSED =
  'Link, Location, ETag, Deprecation, Sunset, WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-Id';

/** Request headers a browser script may send. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match';

/** Answers preflights and says which headers let an allowed origin read an answer. */
export interface Cors {
  /** A 204 for a preflight from an allowed origin to a path answering `allow`, else `undefined`. */
  preflight(request: Request, allow: string | undefined): Response | undefined;
  /** The CORS headers of the answer to `request`; `undefined` when CORS is off. */
  headersFor(request: Request): Record<string, string> | undefined;
}

/**
 * Builds the CORS policy; with no origins, it does nothing. With `*`, any origin may read
 * (answers say `*`, never the caller's origin); otherwise only the named ones, echoed back.
 * Answers vary by Origin whenever CORS is on, so no cache hands one origin's answer to another.
 */
export const createCors = (options: CorsOptions | undefined): Cors => {
  const origins = new Set(options?.origins ?? []);
  if (origins.has('null')) {
    throw new TypeError(
      'The origin "null" cannot be allowed: it is what sandboxed pages and local files send, so it would let any of them in.',
    );
  }
  const any = origins.has('*');
  const allowedOrigin = (request: Request): string | undefined => {
    if (any) return '*';
    const origin = request.headers.get('origin');
    return origin !== null && origins.has(origin) ? origin : undefined;
  };

  return {
    preflight(request, allow) {
      if (origins.size === 0 || !request.headers.has('access-control-request-method')) return undefined;
      const origin = allowedOrigin(request);
      if (origin === undefined || allow === undefined) return undefined;
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': allow,
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': '600',
          'x-content-type-options': 'nosniff',
          vary: 'Origin',
        },
      });
    },
    headersFor(request): Record<string, string> | undefined {
      if (origins.size === 0) return undefined;
      const origin = allowedOrigin(request);
      if (origin === undefined) return { vary: 'Origin' };
      return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED, vary: 'Origin' };
    },
  };
};
