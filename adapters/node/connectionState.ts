/**
 * @module What the standalone server knows about each open connection: the requests waiting
 * for answers, and the last one received. The request listener keeps it; the `clientError`
 * listener reads it to answer in order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One connection's requests. */
export interface ConnectionState {
  /** Requests received and not yet answered (their answer not yet handed to the socket). */
  waiting: number;
  /** Set once the connection was refused more requests: it closes after the answers owed. */
  refused: boolean;
  /** Requests that arrived after the refusal, dropped unanswered. */
  dropped: number;
  /** The last request received, and its response. */
  last: { req: IncomingMessage; res: ServerResponse } | undefined;
  /** Called once, the next time `waiting` falls to 0. */
  whenAnswered: (() => void) | undefined;
  /** Called every time `waiting` falls to 0: the connection caps learn that it rests. */
  rested: (() => void) | undefined;
}

const states = new WeakMap<Socket, ConnectionState>();

/** The state of a connection, made on first use. */
export const connectionState = (socket: Socket): ConnectionState => {
  let state = states.get(socket);
  if (state === undefined) {
    state = { waiting: 0, refused: false, dropped: 0, last: undefined, whenAnswered: undefined, rested: undefined };
    states.set(socket, state);
  }
  return state;
};

/** Counts a request as waiting until its answer is handed to the socket (or the connection closes). */
export const trackAnswer = (state: ConnectionState, req: IncomingMessage, res: ServerResponse): void => {
  state.waiting++;
  state.last = { req, res };
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    state.waiting--;
    if (state.waiting !== 0) return;
    state.rested?.();
    if (state.whenAnswered) {
      const then = state.whenAnswered;
      state.whenAnswered = undefined;
      then();
    }
  };
  res.once('finish', settle);
  res.once('close', settle);
};
