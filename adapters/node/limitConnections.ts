/**
 * @module Caps the connections a server holds, in total and per client address, so that no
 * crowd of idle or trickling connections can use up the process's open files.
 */
import type { Server, Socket } from 'node:net';

/** The connection caps. */
export interface ConnectionLimits {
  /** Connections open at once, from everyone. */
  maxConnections: number;
  /** Connections open at once from one client address (one IPv4 address, or one IPv6 /64). */
  maxConnectionsPerAddress: number;
}

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

/**
 * Applies the caps to a listening server. A connection over a cap is closed as soon as it is
 * accepted, before anything is read from it: cheaper than answering, and it frees its file
 * at once. The total cap is Node's own `server.maxConnections`.
 */
export const limitConnections = (server: Server, { maxConnections, maxConnectionsPerAddress }: ConnectionLimits): void => {
  server.maxConnections = maxConnections;
  const perAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const count = perAddress.get(key) ?? 0;
    if (count >= maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    perAddress.set(key, count + 1);
    socket.once('close', () => {
      const left = perAddress.get(key)! - 1;
      if (left === 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
  });
};
