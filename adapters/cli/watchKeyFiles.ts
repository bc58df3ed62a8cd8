/** @module Tells when a keys file changes: a watch for promptness, a cheap poll for where watches miss edits. */
import { type FSWatcher, type StatWatcher, unwatchFile, watch, watchFile } from 'node:fs';
import path from 'node:path';

/** How often each file's status is checked, in milliseconds, in case a watch misses a change. */
const POLL_MILLISECONDS = 1_000;
/** How long to wait for an editor to finish writing (a save is often several events) before reading. */
const KEY_FILE_SETTLE_MILLISECONDS = 100;

/** A watch over keys files; `close()` ends it. */
export interface KeyFilesWatch {
  close(): void;
}

/**
 * Calls `changed` once shortly after any of `files` changes. Each file's folder is watched
 * (editors often save by writing a new file and renaming it over the old one, which ends a
 * watch on the file itself), and each file's status is polled once a second, for file
 * systems whose watches miss edits (network mounts, some containers). Events that come
 * together make one call. Nothing here keeps the process alive.
 */
export const watchKeyFiles = (files: readonly string[], changed: () => void): KeyFilesWatch => {
  let settling: ReturnType<typeof setTimeout> | undefined;
  const soon = () => {
    clearTimeout(settling);
    settling = setTimeout(changed, KEY_FILE_SETTLE_MILLISECONDS);
    settling.unref();
  };
  const watchers: FSWatcher[] = [];
  const names = new Map<string, Set<string>>();
  for (const file of files) {
    const folder = path.dirname(path.resolve(file));
    const set = names.get(folder) ?? new Set<string>();
    set.add(path.basename(file));
    names.set(folder, set);
  }
  for (const [folder, inFolder] of names) {
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        if (name === null || inFolder.has(name.toString())) soon();
      });
      // A folder that goes away ends its watch; the poll still sees the file come back.
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // No watch here (a folder that cannot be watched): the poll alone sees changes.
    }
  }
  const polled: Array<[string, StatWatcher]> = files.map((file) => {
    const listener = (now: { mtimeMs: number; ino: number; size: number; mode: number }, before: typeof now) => {
      if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size || now.mode !== before.mode) soon();
    };
    const watcher = watchFile(file, { interval: POLL_MILLISECONDS, persistent: false }, listener);
    return [file, watcher];
  });
  return {
    close() {
      clearTimeout(settling);
      for (const watcher of watchers) watcher.close();
      for (const [file] of polled) unwatchFile(file);
    },
  };
};
