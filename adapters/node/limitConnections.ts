/**
 * @module Caps the connections a server holds, in total and per client address, so that no
 * crowd of idle or trickling connections can use up the process's open files, while a
 * well-behaved client is never refused for the connections it or its neighbours hold.
 */
import type { Server, Socket } from 'node:net';
import { ConnectionLedger, type ConnectionPhase } from './ConnectionLedger.js';
import { TOO_MANY_CONNECTIONS_BYTES } from './connectionRefusal.js';
import { connectionState } from './connectionState.js';

/** The connection caps. */
export interface ConnectionLimits {
  /** Connections open at once, from everyone. */
  maxConnections: number;
  /** Connections open at once from one client address (one IPv4 address, or one IPv6 /64). */
  maxConnectionsPerAddress: number;
  /** Client addresses the per-address cap does not apply to (the machine's own, a reverse proxy's). */
  exemptAddresses: readonly string[];
  /** Milliseconds a connection must have gone without a complete request before it may be closed to make room. */
  shedAfter: number;
  /**
   * Closes a connection to make room for a new one: an `idle` keep-alive quietly, an
   * `unfinished` one (no complete request yet) quietly or with an answer that says why.
   */
  shed(socket: Socket, phase: ConnectionPhase): void;
}

/** How long a refused client may take to read its 503 and close, before the connection is cut. */
const REFUSAL_LINGER_MS = 1_000;

/**
 * The key a client address is counted under: an IPv4 address as it is (also when written
 * IPv4-mapped, `::ffff:192.0.2.1`), an IPv6 address by its /64 prefix, since one host is
 * routinely given a whole /64 and could otherwise open connections from each address in it.
 */
export const addressKey = (address: string | undefined): string => {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('%', 1)[0]!.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
};

/** How a connection stands right now, from what the request listener keeps of it. */
export const connectionPhase = (socket: Socket): ConnectionPhase => {
  const { waiting, last } = connectionState(socket);
  if (waiting === 0) return last === undefined ? 'unfinished' : 'idle';
  if (waiting === 1 && !last!.req.complete && !last!.headersSent) return 'unfinished';
  return 'busy';
};

/**
 * Applies the caps to a server, before `node:http` sees a connection: the `connection`
 * listeners it already has (node:http's own) run only for the connections admitted, so call
 * it right after creating the server. When a cap is reached, room is made by closing the
 * connection that has gone longest without a complete request (an idle keep-alive or a slow
 * client; never one being answered, nor one that has owed a request for less than
 * `shedAfter`); only when there is none is the new connection refused, with a 503 and
 * `Retry-After`, written from bytes made once.
 */
export const limitConnections = (server: Server, limits: ConnectionLimits): void => {
  const exempt = new Set(limits.exemptAddresses.map(addressKey));
  const ledger = new ConnectionLedger<Socket>(limits, connectionPhase);
  // Refusals still being read hold files beyond the cap: a flood gets its answers without
  // lingering. A sixteenth of the cap: half of what the default cap (7/8 of the open files)
  // leaves, so the process's own files and the ones a create opens always have the rest.
  const maxLingering = Math.max(16, Math.floor(limits.maxConnections / 16));
  let lingering = 0;

  const refuse = (socket: Socket) => {
    // A client that resets while being refused is its own business.
    socket.on('error', () => {});
    socket.end(TOO_MANY_CONNECTIONS_BYTES);
    // What the client sent is read and dropped: closing on unread bytes would reset the
    // connection, and the client could lose the answer.
    socket.resume();
    if (lingering >= maxLingering) {
      socket.once('finish', () => socket.destroy());
      return;
    }
    lingering++;
    const cut = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
    cut.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => {
      lingering--;
      clearTimeout(cut);
    });
  };

  const httpListeners = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (socket.remoteAddress === undefined || socket.destroyed) {
      socket.destroy();
      return;
    }
    const address = addressKey(socket.remoteAddress);
    const admission = ledger.admit(socket, address, exempt.has(address), Date.now());
    if (!admission.admitted) {
      refuse(socket);
      return;
    }
    for (const victim of admission.shed) limits.shed(victim, connectionPhase(victim));
    connectionState(socket).rested = () => ledger.rested(socket, Date.now());
    socket.once('close', () => ledger.closed(socket));
    for (const listener of httpListeners) listener.call(server, socket);
  });
};
