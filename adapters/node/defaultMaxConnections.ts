/**
 * @module The default total connection cap, from the process's open-file limit: every
 * connection holds a file, and the storage, the log and a refusal being written need some too.
 */
import { readFileSync } from 'node:fs';

/** The open-file limit assumed where it cannot be read: the usual `ulimit -n` of a shell. */
const USUAL_OPEN_FILES = 1_024;

/**
 * The most connections the default allows, whatever the open-file limit: each open
 * connection costs the server memory (a few kilobytes to tens, with its buffers), and
 * containers often allow a million files.
 */
export const MAX_CONNECTIONS_CEILING = 16_384;

/**
 * The soft limit on open files this process runs under (`ulimit -n`; Node raises it to the
 * hard limit at start), read from `/proc/self/limits` on Linux; `undefined` elsewhere.
 */
export const readOpenFileLimit = (limitsFile = '/proc/self/limits'): number | undefined => {
  try {
    const line = /^Max open files\s+(\d+|unlimited)\s/m.exec(readFileSync(limitsFile, 'latin1'));
    if (!line) return undefined;
    return line[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(line[1]);
  } catch {
    return undefined;
  }
};

/**
 * Seven eighths of the open-file limit (896 of the usual 1,024, which leaves 128 for the rest), at
 * most `MAX_CONNECTIONS_CEILING`, at least 1.
 */
export const defaultMaxConnections = (openFiles = readOpenFileLimit() ?? USUAL_OPEN_FILES): number =>
  Math.max(1, Math.min(MAX_CONNECTIONS_CEILING, Math.floor((openFiles * 7) / 8)));
