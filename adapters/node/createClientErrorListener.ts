/**
 * @module Answers what `node:http` refuses itself (a malformed request line or body framing,
 * headers too large, a client too slow) with an Error body instead of Node's empty one; and
 * a connection closed to make room for another (`SHED_CODE`).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { adapterErrorAnswer, type ErrorAnswer, rawErrorAnswer, writeErrorAnswer } from './adapterErrorAnswer.js';
import { SHED_CODE, TOO_MANY_CONNECTIONS } from './connectionRefusal.js';
import { connectionState } from './connectionState.js';

/** How long a refused client may go on sending before its connection is cut. */
const LINGER_MS = 1_000;

/** The answer for a `clientError`, by Node's error code; `undefined` when the client is gone. */
export const clientErrorAnswer = (code: string | undefined): AnimalStoreError | undefined => {
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return new AnimalStoreError(
        'validation_failed',
        'The request headers are larger than the server accepts (16 KiB in all); send fewer or shorter headers.',
        { status: 431 },
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AnimalStoreError('payload_too_large', 'The chunk extensions of the request body are too large.');
    case SHED_CODE:
      return TOO_MANY_CONNECTIONS;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AnimalStoreError(
        'request_timeout',
        'The request did not arrive in time; send the whole request promptly, then try again.',
      );
    default:
      return new AnimalStoreError(
        'validation_failed',
        'The request is not well-formed HTTP/1.1 (request line, headers or body framing); check what the client sends.',
      );
  }
};

/** Writes the answer straight to the socket and closes once the client has read it, or `LINGER_MS` later. */
const answerOnSocket = (socket: Socket, answer: ErrorAnswer): void => {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorAnswer(answer));
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  socket.once('end', () => socket.destroy());
};

const answered = new WeakSet<Socket>();

/**
 * A `clientError` listener: answers with an Error body, in order, then closes. Node may
 * report several errors for one connection; it is answered once.
 *
 * - When the error struck while a request's body was arriving (a broken chunk, the request
 *   timeout), that request is answered with it, unless its answer has begun.
 * - When answers to earlier requests are still owed, they go first: the connection stops
 *   reading and the Error answer follows the last of them.
 * - Otherwise the answer is written straight to the socket.
 *
 * @param onAnswer Called with each answer sent, and the request it answers when there is
 *   one, for the access log.
 */
export const createClientErrorListener =
  (onAnswer: (answer: ErrorAnswer, req?: IncomingMessage) => void) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const refusal = clientErrorAnswer(error.code);
    if (refusal === undefined) {
      socket.destroy();
      return;
    }
    const answer = adapterErrorAnswer(refusal);
    const state = connectionState(socket);
    const arriving = state.last && !state.last.req.complete ? state.last : undefined;
    if (arriving) {
      if (arriving.headersSent) {
        socket.destroy();
        return;
      }
      socket.pause();
      onAnswer(answer, arriving.req);
      // Its body will never arrive whole. Node forgets a request once it is answered, so it
      // would never abort that body either: abort it as Node does (ECONNRESET, "aborted")
      // when the answer is out, or the service reading it would wait forever.
      arriving.once('close', () => arriving.req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
      writeErrorAnswer(arriving.req, arriving, answer);
      return;
    }
    if (state.waiting > 0) {
      socket.pause();
      state.whenAnswered = () => {
        onAnswer(answer);
        answerOnSocket(socket, answer);
      };
      return;
    }
    onAnswer(answer);
    answerOnSocket(socket, answer);
  };
