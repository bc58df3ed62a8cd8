/** @module Cross-origin access for named origins (browser kiosks); off by default. */

/** The CORS policy: which origins may call the API from a browser. */
export interface CorsOptions {
  /** Origins allowed, exactly as browsers send them (`https://kiosk.example`), or `*`. */
  origins: readonly string[];
}

/** Headers a browser script may read from our answers. */
const EXPOSED = 'Link, Location, Deprecation, Sunset, WWW-Authenticate';

/** Answers preflights and labels answers for allowed origins. */
export interface Cors {
  /** A 204 for a preflight from an allowed origin, else `undefined`. */
  preflight(request: Request, allow: string | undefined): Response | undefined;
  /** Adds the CORS headers an allowed origin needs to read a response. */
  decorate(request: Request, response: Response): Response;
}

/** Builds the CORS policy; with no origins, it does nothing. */
export const createCors = (options: CorsOptions | undefined): Cors => {
  const origins = new Set(options?.origins ?? []);
  const allowedOrigin = (request: Request): string | undefined => {
    if (origins.size === 0) return undefined;
    const origin = request.headers.get('origin');
    if (origin === null) return undefined;
    return origins.has(origin) || origins.has('*') ? origin : undefined;
  };

  return {
    preflight(request, allow) {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return undefined;
      const origin = allowedOrigin(request);
      if (origin === undefined || allow === undefined) return undefined;
      return new Response(null, {
        status: 204,
        headers: {
          'access-control-allow-origin': origin,
          'access-control-allow-methods': allow,
          'access-control-allow-headers': 'Authorization, Content-Type',
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
    },
    decorate(request, response) {
      const origin = allowedOrigin(request);
      if (origin === undefined) return response;
      response.headers.set('access-control-allow-origin', origin);
      response.headers.set('access-control-expose-headers', EXPOSED);
      if (!/\borigin\b/i.test(response.headers.get('vary') ?? '')) response.headers.append('vary', 'Origin');
      return response;
    },
  };
};
