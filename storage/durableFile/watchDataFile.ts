/** @module Notices when a data file changes on disk: a watch on its folder, so an edit saved by rename is seen too. */
import fs from 'node:fs';
import path from 'node:path';
import { journalPath } from './Journal.js';

/** How long to wait after a change before looking: an editor's save is often several steps. */
const SETTLE_MILLISECONDS = 50;

/** A watch on a data file's folder (see `watchDataFile`). */
export interface DataFileWatch {
  /** How many changes it has been told of: counted the moment each comes, where `onChange` waits for a pause. */
  readonly changes: number;
  /** Whether it watches: false where the system cannot watch (no inotify watches left), and once the watch failed. */
  readonly watching: boolean;
  /** Stops watching. */
  stop(): void;
}

/**
 * Calls `onChange` soon after something changes the file `file` (written in place, replaced
 * by a rename, removed), at most once per 50 ms. Watches the folder rather than the file: a
 * watch on a file follows its inode, which an editor's save by rename (and each of the
 * storage's own writes) puts out of the folder. The storage's own writes call it too;
 * `onChange` tells those apart by comparing the file with what it last wrote. Its journal
 * being removed, moved or replaced calls it too (appends to the journal do not). Where the
 * system cannot watch (no inotify watches left, a network share), it watches nothing, and
 * the storage still finds edits before each write.
 */
export const watchDataFile = (file: string, onChange: () => void): DataFileWatch => {
  const name = path.basename(file);
  const journal = path.basename(journalPath(file));
  let timer: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher | undefined;
  let changes = 0;
  const changed = (event: string, changedName: string | Buffer | null) => {
    const entry = changedName?.toString();
    if (entry !== undefined && entry !== name && !(entry === journal && event === 'rename')) return;
    changes++;
    timer ??= setTimeout(() => {
      timer = undefined;
      onChange();
    }, SETTLE_MILLISECONDS);
    timer.unref();
  };
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, changed);
    watcher.on('error', () => {
      watcher?.close();
      watcher = undefined;
    });
  } catch {
    watcher = undefined;
  }
  return {
    get changes() {
      return changes;
    },
    get watching() {
      return watcher !== undefined;
    },
    stop() {
      watcher?.close();
      watcher = undefined;
      clearTimeout(timer);
    },
  };
};
