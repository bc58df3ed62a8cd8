/** @module A file system for tests whose writes can be held back or made to fail, one by one. */

import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';

/** What one durable write (one temp file of a whole write, or one append to the journal) should meet. */
export interface WritePlan {
  /** The write waits for this before it starts. */
  hold?: Promise<void>;
  /** Opening the temp file (or the append) fails, as on a full disk: the data file and journal are untouched. */
  failOpen?: boolean;
  /** The temp file's fsync (or the append, after its bytes landed) fails: the data file is untouched, the journal's line cut back. */
  failFileSync?: boolean;
  /** The folder fsync after the rename fails: the new file is in place, its durability unknown (an append: its line landed and cannot be cut back). */
  failFolderSync?: boolean;
}

const ioError = (code: string, message: string) => Object.assign(new Error(`${code}: ${message}`), { code });

/** Wraps a file handle so that `sync` fails. */
const failingSync = (handle: FileHandle): FileHandle =>
  new Proxy(handle, {
    get(target, key) {
      if (key === 'sync') return async () => Promise.reject(ioError('EIO', 'i/o error, fsync'));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

/**
 * Wraps a journal's handle: each `write` is one durable write that follows its plan (the
 * journal's writes are durable on return, O_DSYNC); a failed one whose line cannot be cut
 * back makes the next `truncate` fail too.
 */
const controlledJournal = (handle: FileHandle, nextPlan: () => WritePlan): FileHandle => {
  let truncateFails = false;
  return new Proxy(handle, {
    get(target, key) {
      if (key === 'write') {
        return async (...args: Parameters<FileHandle['write']>) => {
          const plan = nextPlan();
          await plan.hold;
          if (plan.failOpen) throw ioError('ENOSPC', 'no space left on device, write');
          const written = await (target.write as (...a: unknown[]) => Promise<unknown>)(...args);
          if (!plan.failFileSync && !plan.failFolderSync) return written;
          truncateFails = plan.failFolderSync === true;
          throw ioError('EIO', 'i/o error, write');
        };
      }
      if (key === 'truncate' && truncateFails) {
        truncateFails = false;
        return async () => Promise.reject(ioError('EIO', 'i/o error, truncate'));
      }
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

/**
 * Node's file system, except that the nth durable write (counted by the temp files whole
 * writes open and the journal's appends, from 1) follows `plans[n]`. `writes` counts the
 * writes started.
 */
export const createControlledFileSystem = (folder: string) => {
  const control = { writes: 0, plans: new Map<number, WritePlan>() };
  let folderSyncFails = false;
  let fileSyncFails = false;
  const nextPlan = () => control.plans.get(++control.writes) ?? {};
  const fs: FileSystem = {
    ...Object.fromEntries(Object.keys(nodeFileSystem).map((key) => [key, nodeFileSystem[key as keyof FileSystem]])),
    open: (async (file: string, flags?: string | number, mode?: number) => {
      if (flags === 'wx') {
        const plan = control.plans.get(++control.writes) ?? {};
        await plan.hold;
        if (plan.failOpen) throw ioError('ENOSPC', `no space left on device, open '${file}'`);
        folderSyncFails = plan.failFolderSync === true;
        fileSyncFails = plan.failFileSync === true;
      }
      const handle = await nodeFileSystem.open(file, flags, mode);
      // The journal, or the new journal a whole write made alongside creates puts in its place.
      if (file.endsWith('.journal') || /\.journal\.\d+\.[0-9a-f]+\.tmp$/.test(file)) return controlledJournal(handle, nextPlan);
      if (flags === 'wx' && fileSyncFails) return failingSync(handle);
      if (path.resolve(file) === path.resolve(folder) && folderSyncFails) {
        folderSyncFails = false;
        return failingSync(handle);
      }
      return handle;
    }) as FileSystem['open'],
  } as FileSystem;
  return { fs, control };
};

/** A promise and the function that resolves it. */
export const gate = () => {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
};

/** Lets pending I/O and timers run until `condition` holds (or fails the test after a while). */
export const until = async (condition: () => boolean, what: string) => {
  for (let turn = 0; turn < 10_000; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`Timed out waiting until ${what}`);
};

/** Node's file system, except that once armed, a whole write's temp file waits for `held` before it opens, and renames may fail. */
export const holdingWholeWrites = ({ failJournalRename = false } = {}) => {
  const held = gate();
  let armed = false;
  let waiting = 0;
  const fs: FileSystem = {
    ...nodeFileSystem,
    open: (async (file: string, flags?: string | number, mode?: number) => {
      if (armed && flags === 'wx') {
        waiting++;
        await held.closed;
      }
      return nodeFileSystem.open(file, flags, mode);
    }) as FileSystem['open'],
    rename: async (from, to) => {
      if (failJournalRename && String(to).endsWith('.journal')) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
      return nodeFileSystem.rename(from, to);
    },
  };
  return { fs, held, arm: () => (armed = true), waiting: () => waiting };
};

/** Waits until every whole write begun so far (the calls `replace`, a spy on `DurableTextFile.prototype.replace`, saw) has ended, however it ended. */
export const settled = async (replace: { mock: { results: { value: unknown }[] } }) => {
  for (let seen = -1; seen !== replace.mock.results.length; ) {
    seen = replace.mock.results.length;
    await Promise.allSettled(replace.mock.results.map(({ value }) => value as Promise<void>));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
