/**
 * @module The Error answers the HTTP adapters make themselves, for requests that never reach
 * the service (a malformed request line or Host, headers too large, a client too slow or
 * pipelining too far ahead) and for their own failures. They are the service's one Error
 * answer (`errorAnswerOf`), and close the connection.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { type ErrorAnswer, errorAnswerOf } from '../../core/http/errorAnswerOf.js';

export type { ErrorAnswer } from '../../core/http/errorAnswerOf.js';

/**
 * The Error answer for `error`, as an adapter sends it: `Content-Length` given, and
 * `Connection: close`, since a client that got one of these is not sent more.
 */
export const adapterErrorAnswer = (error: unknown): ErrorAnswer => {
  const answer = errorAnswerOf(error, { connection: 'close' });
  answer.headers['content-length'] = String(Buffer.byteLength(answer.body));
  return answer;
};

/** The whole HTTP/1.1 answer as bytes, for a socket that has no response object (a request that never parsed). */
export const rawErrorAnswer = (answer: ErrorAnswer): Buffer => {
  const head = Object.entries(answer.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${head}\r\n${answer.body}`, 'utf8');
};

/** A `validation_failed` 400 naming the header or part of the request that is wrong. */
export const validationFailed = (path: string, message: string): AnimalStoreError =>
  new AnimalStoreError('validation_failed', message, { details: [{ path, message }] });

/**
 * Writes an Error answer on a request's response; the connection closes after it. HEAD gets
 * the head alone. Once the response has begun, all that can be done is to cut it.
 */
export const writeErrorAnswer = (req: IncomingMessage, res: ServerResponse, answer: ErrorAnswer): void => {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(req.method === 'HEAD' ? undefined : answer.body);
};
