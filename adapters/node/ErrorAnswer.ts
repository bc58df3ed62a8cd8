/**
 * @module The Error answers the HTTP adapters make themselves, for requests that never reach
 * the service: a malformed request line or Host, headers too large, a client too slow or
 * pipelining too far ahead. They carry the same Error body and the headers the service
 * gives every answer, and close the connection.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { ErrorCode, ErrorDetail } from '../../core/index.js';

/** The codes an adapter answers with: the service's own (`request_timeout` is only ever the adapter's). */
export type AdapterErrorCode = ErrorCode;

/** An Error answer an adapter makes: the body's fields, plus headers of its own. */
export interface ErrorAnswer {
  status: number;
  code: AdapterErrorCode;
  /** A sentence the client can act on; never a stack, a path or an internal name. */
  message: string;
  /** One entry per problem, on a `validation_failed` 400. */
  details?: ErrorDetail[];
  /** Extra headers, such as `Retry-After`. */
  headers?: Record<string, string>;
}

/** The Error body of an answer, as JSON text. */
export const errorBodyText = ({ code, message, status, details }: ErrorAnswer): string =>
  JSON.stringify(details === undefined ? { code, message, status } : { code, message, status, details });

/**
 * The headers of an adapter's Error answer: the ones every answer of the service carries,
 * and `Connection: close`, since a client that got one of these is not sent more.
 */
export const errorAnswerHeaders = (answer: ErrorAnswer, body: string): Record<string, string> => ({
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(body)),
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  connection: 'close',
  ...answer.headers,
});

/** The whole HTTP/1.1 answer as bytes, for a socket that has no response object (a request that never parsed). */
export const rawErrorAnswer = (answer: ErrorAnswer): Buffer => {
  const body = errorBodyText(answer);
  const head = Object.entries(errorAnswerHeaders(answer, body))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${head}\r\n${body}`, 'utf8');
};

/** A `validation_failed` 400 naming the header or part of the request that is wrong. */
export const validationFailed = (path: string, message: string): ErrorAnswer => ({
  status: 400,
  code: 'validation_failed',
  message,
  details: [{ path, message }],
});

/**
 * Writes an Error answer on a request's response; the connection closes after it. HEAD gets
 * the head alone. Once the response has begun, all that can be done is to cut it.
 */
export const writeErrorAnswer = (req: IncomingMessage, res: ServerResponse, answer: ErrorAnswer): void => {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const body = errorBodyText(answer);
  res.writeHead(answer.status, errorAnswerHeaders(answer, body));
  res.end(req.method === 'HEAD' ? undefined : body);
};
