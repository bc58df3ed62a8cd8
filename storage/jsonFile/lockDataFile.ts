/** @module One owner per data file: a lock the kernel releases the moment its owner dies. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { DataFileLockedError, type DataFileOwner } from './DataFileError.js';

/** A held lock on a data file. */
export interface DataFileLock {
  /** Releases the lock; another process may then open the file. */
  release(): Promise<void>;
}

/** How long a second opener waits for the owner to say who it is before saying "another process". */
const OWNER_REPLY_MILLISECONDS = 5_000;

/**
 * Where the lock lives. On Linux, a socket in the abstract namespace: it has no file, so it
 * cannot go stale, and the kernel frees its name the instant the owning process exits,
 * however it exits (kill -9 included), so a supervisor can restart at once. On Windows, a
 * named pipe, which behaves the same. Elsewhere, a socket file next to the data file (seen
 * by every user who can see the file), which a crash leaves behind; `lockDataFile` removes
 * it when nothing answers on it. Socket paths are limited to about 100 bytes, so a long one
 * moves to /tmp under a name drawn from the file's path (not to the per-user temp folder).
 */
const lockAddress = (realFile: string, platform: NodeJS.Platform): { address: string; isFile: boolean } => {
  const digest = createHash('sha256').update(realFile).digest('hex');
  if (platform === 'linux') return { address: `\0animal-store/${digest}`, isFile: false };
  if (platform === 'win32') return { address: `\\\\?\\pipe\\animal-store-${digest}`, isFile: false };
  const beside = `${realFile}.lock`;
  if (Buffer.byteLength(beside) <= 100) return { address: beside, isFile: true };
  return { address: path.join('/tmp', `animal-store-${digest.slice(0, 32)}.lock`), isFile: true };
};

/** Listens on the address, or fails with EADDRINUSE when someone else does. */
const listen = (server: net.Server, address: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path: address, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });

/** Asks the process listening on the address who it is: its answer, or why there is none. */
const askOwner = (address: string) =>
  new Promise<{ owner: DataFileOwner } | { gone: true } | { silent: true }>((resolve) => {
    const socket = net.connect({ path: address });
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ silent: true });
    }, OWNER_REPLY_MILLISECONDS);
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (reply += text));
    socket.on('end', () => {
      clearTimeout(timer);
      try {
        const { pid, since } = JSON.parse(reply) as DataFileOwner;
        resolve(typeof pid === 'number' && typeof since === 'string' ? { owner: { pid, since } } : { silent: true });
      } catch {
        resolve({ silent: true });
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Nobody listens: the owner exited between our listen and this connect.
      resolve(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? { gone: true } : { silent: true });
    });
  });

/**
 * Takes the lock on a data file, or throws a DataFileLockedError naming the file and the
 * owning process. `realFile` is the file's real path (symlinks resolved), so two names for
 * one file share one lock; `file` is the name used in messages.
 *
 * Why a socket rather than a lock file: a lock file outlives a crashed owner, and telling a
 * stale one from a live one means pids (reused) or timeouts (slow restarts). A listening
 * socket lives exactly as long as its process. Its server answers each connection with the
 * owner's pid, which is all a second opener needs for its message; it is unref'd, so it
 * never keeps a process alive. It guards against processes on this machine and in this
 * network namespace: the file's folder on a network share or in two containers is not.
 *
 * @param platform Which platform's kind of lock to take; this one's by default (tests take
 *   the socket-file kind on Linux, where both work).
 */
export const lockDataFile = async (file: string, realFile: string, platform: NodeJS.Platform = process.platform): Promise<DataFileLock> => {
  const { address, isFile } = lockAddress(realFile, platform);
  const owner: DataFileOwner = { pid: process.pid, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.end(JSON.stringify(owner));
    });
    try {
      await listen(server, address);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      const answer = await askOwner(address);
      if ('owner' in answer) throw new DataFileLockedError(file, answer.owner);
      if ('silent' in answer) throw new DataFileLockedError(file, undefined);
      // The owner is gone. Its abstract name is already free; a socket file it left is not.
      // (Two openers removing one stale socket file at the same instant can race; that
      // fallback is for development machines, the Linux path has no such window.)
      if (isFile) await fs.unlink(address).catch(() => {});
      continue;
    }
    server.unref();
    // Errors on an accepted connection are the asker's business, never a reason to crash.
    server.on('error', () => {});
    return {
      release: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
        }),
    };
  }
  throw new DataFileLockedError(file, undefined);
};
