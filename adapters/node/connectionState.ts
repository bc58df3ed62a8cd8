/**
 * @module What the standalone server knows about each open connection: the requests waiting
 * for answers, and the last one received. The request listener keeps it; the `clientError`
 * listener reads it to answer in order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One connection's requests. */
export interface ConnectionState {
  /** Requests received and not yet answered (their response not yet closed). */
  waiting: number;
  /** Set once the connection was refused more requests: it closes after the answers owed. */
  refused: boolean;
  /** Requests that arrived after the refusal, dropped unanswered. */
  dropped: number;
  /** The response to the last request received (its request is `last.req`). */
  last: ServerResponse<IncomingMessage> | undefined;
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

/** What is kept of a request until its response closes. */
interface TrackedAnswer {
  connection: ConnectionState;
  /** Called when the response closes before it was sent whole, or its request before it arrived whole. */
  abandoned: (() => void) | undefined;
}

const TRACKED = Symbol('animal-store: tracked answer');
const RESPONSE = Symbol('animal-store: response');
type TrackedResponse = ServerResponse<IncomingMessage> & { [TRACKED]?: TrackedAnswer | undefined };
type TrackedRequest = IncomingMessage & { [RESPONSE]?: TrackedResponse };

/** The request went away: its response will never be sent whole, or its body will never arrive whole. */
const abandon = (res: TrackedResponse) => {
  const tracked = res[TRACKED];
  if (tracked?.abandoned !== undefined && (!res.req.complete || !res.writableFinished)) {
    const { abandoned } = tracked;
    tracked.abandoned = undefined;
    abandoned();
  }
};

// Listeners shared by every request: one function each, reading what is kept on the
// response, rather than closures made and registered for each request, which cost a loaded
// server more than anything else it does for a small answer.
function responseClosed(this: TrackedResponse) {
  abandon(this);
  const tracked = this[TRACKED];
  if (tracked === undefined) return;
  this[TRACKED] = undefined;
  const state = tracked.connection;
  state.waiting--;
  if (state.waiting !== 0) return;
  state.rested?.();
  if (state.whenAnswered) {
    const then = state.whenAnswered;
    state.whenAnswered = undefined;
    then();
  }
}
function requestFailed(this: TrackedRequest) {
  const res = this[RESPONSE];
  if (res !== undefined) abandon(res);
}

/**
 * Counts a request as waiting until its response closes (sent whole, or cut off), and calls
 * `abandoned` (at most once) when the client goes away before the answer is sent whole or
 * the request's body ends short. A response closes the turn after it was sent.
 */
export const trackAnswer = (
  state: ConnectionState,
  req: IncomingMessage,
  res: ServerResponse<IncomingMessage>,
  abandoned?: () => void,
): void => {
  state.waiting++;
  state.last = res;
  (res as TrackedResponse)[TRACKED] = { connection: state, abandoned };
  // `once`, not `on`: the listener leaves the response when it fires. Left on the closed
  // response, V8's pretenuring (see adapters/cli/stopPretenuring.ts) took hold more often
  // under the durable creates that follow a spell of reads.
  res.once('close', responseClosed);
  // Registered before the body is read, so whoever reads it learns it was abandoned first.
  if (abandoned !== undefined && req.method !== 'GET' && req.method !== 'HEAD') {
    (req as TrackedRequest)[RESPONSE] = res;
    req.on('error', requestFailed);
  }
};
