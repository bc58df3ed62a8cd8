/**
 * @module Closes connections whose answers stop moving: a client that asks and never reads
 * would otherwise hold its socket, and every answer queued on it, for as long as it likes.
 */
import type { Server, Socket } from 'node:net';

interface Progress {
  /** Bytes the kernel had taken at the last look. */
  sent: number;
  /** When the output was last seen moving (or first seen waiting). */
  since: number;
}

/**
 * Watches every connection of a server, every `checkEvery` milliseconds: one whose unsent
 * output has not moved for `writeTimeout` milliseconds is destroyed. Output moves when the
 * kernel takes bytes, which it does as fast as the client reads; an idle connection with
 * nothing to send is left to the keep-alive timeout.
 *
 * @returns A function that stops the watch (the server's `close` stops it too).
 */
export const closeStalledConnections = (server: Server, writeTimeout: number, checkEvery = Math.min(1_000, writeTimeout)): (() => void) => {
  const watched = new Map<Socket, Progress | undefined>();
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    watched.set(socket, undefined);
    socket.once('close', () => watched.delete(socket));
  });
  const check = () => {
    const now = Date.now();
    for (const [socket, progress] of watched) {
      const waiting = socket.writableLength;
      if (waiting === 0) {
        if (progress !== undefined) watched.set(socket, undefined);
        continue;
      }
      // bytesWritten counts what is still buffered too; what the kernel took is the difference.
      const sent = socket.bytesWritten - waiting;
      if (progress === undefined || progress.sent !== sent) watched.set(socket, { sent, since: now });
      else if (now - progress.since >= writeTimeout) socket.destroy();
    }
  };
  const timer = setInterval(check, checkEvery);
  timer.unref();
  const stop = () => clearInterval(timer);
  server.once('close', stop);
  return stop;
};
