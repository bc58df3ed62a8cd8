/** @module One owner per data file: the kernel's lock on the file itself, freed the moment its owner dies, and who holds it when a start is refused. */
import fs, { type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { DataFileError, DataFileLockedError, type DataFileOwner, systemErrorReason } from './errors.js';

/** What the storage uses of fs-native-extensions. */
interface NativeLocks {
  /** Takes an exclusive lock on the open file, or answers false when another open file holds one. */
  tryLock(fd: number): boolean;
}

let nativeLocks: NativeLocks | undefined;

/**
 * Loads the native module when a data file is first opened, not when the package is
 * imported: a program that keeps its animals in memory never loads it, and a platform
 * without a prebuild fails with a sentence at open rather than at import.
 */
const loadNativeLocks = (name: string): NativeLocks => {
  try {
    nativeLocks ??= createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;
    return nativeLocks;
  } catch (error) {
    throw new DataFileError(
      name,
      `The data file ${name} cannot be locked: the native lock module (fs-native-extensions) does not load on ${process.platform}-${process.arch}: ${systemErrorReason(error).reason}.`,
      { cause: error },
    );
  }
};

/**
 * Locks an open data file (opened for writing) for this process, or throws a
 * DataFileLockedError naming the file and, when it can be found, the owning process.
 *
 * The lock is the kernel's, on the open file: an open-file-description lock (F_OFD_SETLK) on
 * Linux, flock on macOS, LockFileEx on Windows, through fs-native-extensions. So it belongs
 * to the file (the inode), whatever name reaches it (a symlink, a hard link, a bind mount),
 * not to a path string; only who can open the file for writing can take it; a second open
 * in the same process is refused too; and the kernel frees it the moment its holder closes
 * the file or dies (kill -9 included): no stale lock, no timeout. It guards against
 * processes on one machine.
 */
export const lockDataFile = async (handle: FileHandle, name: string): Promise<void> => {
  if (loadNativeLocks(name).tryLock(handle.fd)) return;
  const { dev, ino } = await handle.stat();
  throw new DataFileLockedError(name, await findLockOwner(dev, ino));
};

/** Clock ticks per second in /proc/<pid>/stat: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/** How the kernel names an inode in lock lines: `fe:00:2253554`, major and minor in hex. */
const inodeName = (dev: number, ino: number): string => {
  const major = (dev >>> 8) & 0xfff;
  const minor = (dev & 0xff) | ((dev >>> 12) & 0xfff00);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`;
};

const readOrNothing = (file: string) => fs.readFile(file, 'utf8').catch(() => '');

/** Whether one of the process's open files holds a lock on the inode (its fdinfo has the lock line). */
const holdsLock = async (pid: string, lockLine: RegExp): Promise<boolean> => {
  const fds = await fs.readdir(`/proc/${pid}/fdinfo`).catch(() => [] as string[]);
  const infos = await Promise.all(fds.map((fd) => readOrNothing(`/proc/${pid}/fdinfo/${fd}`)));
  return infos.some((info) => lockLine.test(info));
};

/** When the process started, as an ISO date, from its start time in ticks after boot. */
const startedAt = async (pid: number): Promise<string | undefined> => {
  const stat = await readOrNothing(`/proc/${pid}/stat`);
  // Fields after the command name (in parentheses, which may hold spaces): state is field 3, starttime field 22.
  const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  const boot = Number(/^btime (\d+)$/m.exec(await readOrNothing('/proc/stat'))?.[1]);
  if (!Number.isFinite(ticks) || !Number.isFinite(boot) || boot === 0) return undefined;
  return new Date((boot + ticks / USER_HZ) * 1000).toISOString();
};

/**
 * The process holding a lock on the inode `ino` of device `dev`, or `undefined` when none
 * can be found (not Linux, the owner exited meanwhile, or its /proc entries are not ours to
 * read). /proc/locks names the holder of a classic lock, but shows -1 for an open-file-
 * description lock, so those are found in the `lock:` lines of each process's
 * /proc/<pid>/fdinfo. It runs only when a start is refused.
 */
const findLockOwner = async (dev: number, ino: number): Promise<DataFileOwner | undefined> => {
  if (process.platform !== 'linux') return undefined;
  const inode = inodeName(dev, ino);
  const locks = (await readOrNothing('/proc/locks')).split('\n').filter((line) => line.includes(` ${inode} `));
  if (locks.length === 0) return undefined;
  let pid = locks.map((line) => Number(/ (-?\d+) [0-9a-f]+:[0-9a-f]+:\d+ /.exec(line)?.[1])).find((found) => found > 0);
  if (pid === undefined) {
    const lockLine = new RegExp(`^lock:.* ${inode} `, 'm');
    // This process first: a second open in the same process is the common case in tests and embedders.
    const others = (await fs.readdir('/proc').catch(() => [] as string[])).filter(
      (name) => /^\d+$/.test(name) && name !== String(process.pid),
    );
    const pids = [String(process.pid), ...others];
    for (const candidate of pids) {
      if (await holdsLock(candidate, lockLine)) {
        pid = Number(candidate);
        break;
      }
    }
  }
  return pid === undefined ? undefined : { pid, since: await startedAt(pid) };
};
