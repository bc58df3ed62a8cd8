/** @module A text file this process owns and replaces atomically and durably: locked temp file, fsync, rename, fsync folder. */
import { randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DataFileError } from './DataFileError.js';
import type { FileSystem } from './FileSystem.js';
import { lockDataFile } from './lockDataFile.js';
import { syncFolder } from './syncFolder.js';
import { systemErrorReason } from './systemErrorReason.js';

/**
 * A write that failed: says why in one line (the same line each time the same failure
 * happens), with the system error's code, and whether the file may already hold the new
 * content.
 */
export class DurableWriteError extends Error {
  override readonly name = 'DurableWriteError';
  /**
   * True when the rename had happened, so the new content may be in place (only its
   * durability is in doubt); false when the file still holds what it held before.
   */
  readonly replaced: boolean;
  /** The system error's code (ENOSPC, EACCES, EROFS, EIO, …), when the failure was one. */
  readonly code: string | undefined;
  /** The step that failed, such as `fsync the temp file`. */
  readonly step: string;

  constructor(file: string, step: string, replaced: boolean, cause: unknown) {
    const { code, reason } = systemErrorReason(cause);
    super(`The data file ${file} cannot be written: ${reason}`, { cause });
    this.replaced = replaced;
    this.code = code;
    this.step = step;
  }
}

/** The file is not as this process last read or wrote it: someone else changed it. Nothing was written. */
export class FileChangedError extends Error {
  override readonly name = 'FileChangedError';
}

/** What tells one version of the file from another without reading it. */
interface FileVersion {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

const versionOf = ({ dev, ino, size, mtimeNs, ctimeNs }: BigIntStats): FileVersion => ({ dev, ino, size, mtimeNs, ctimeNs });

const sameVersion = (one: FileVersion, other: FileVersion): boolean =>
  one.dev === other.dev &&
  one.ino === other.ino &&
  one.size === other.size &&
  one.mtimeNs === other.mtimeNs &&
  one.ctimeNs === other.ctimeNs;

/** The file's permissions and owner, which each replacement is given before it takes the file's place. */
interface Ownership {
  mode: number;
  uid: number;
  gid: number;
}

const ownershipOf = ({ mode, uid, gid }: BigIntStats): Ownership => ({ mode: Number(mode & 0o7777n), uid: Number(uid), gid: Number(gid) });

/** A new data file is readable and writable by its owner only: animals' names are no one else's business. */
const NEW_FILE_MODE = 0o600;

/** What the health probe writes. */
const PROBE_BYTES = Buffer.from('animal-store health probe\n');

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/**
 * Gives a replacement the file's owner, group and permissions. chown comes first, since it
 * clears set-id bits; fchmod is not masked by the umask, as the mode given to open is. Only
 * root (or the owner itself) may give a file to another user: a server that may not keeps
 * at least the group when it belongs to it, and becomes the owner.
 */
const keepOwnership = async (handle: FileHandle, { mode, uid, gid }: Ownership): Promise<void> => {
  if (process.platform !== 'win32') {
    await handle
      .chown(uid, gid)
      .catch(() => handle.chown(-1, gid))
      .catch(() => {});
  }
  await handle.chmod(mode);
};

/** Writes all the chunks to a handle. */
const writeAll = async (handle: FileHandle, chunks: readonly Uint8Array[]): Promise<void> => {
  const { bytesWritten } = await handle.writev(chunks as Uint8Array[]);
  const expected = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
  // libuv writes until done or failed; a short count would be a bug below us, not a retry case.
  if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
};

/** How to take a file. */
export interface TakeOptions {
  /** The file's name in messages (the path as given, where `file` may be its real path). */
  name: string;
  fs: FileSystem;
  /** The content of the file when it has to be created. */
  initial: () => Uint8Array[];
}

/**
 * A file this process owns (holds the kernel's lock on, see `lockDataFile`) and only ever
 * replaces whole. Each write goes to a temp file of its own in the same folder
 * (`<name>.<pid>.<random>.tmp`: the same folder so the rename is atomic, a name of its own so
 * no two writers ever share one), which is locked, given the file's owner and permissions,
 * fsynced, and renamed over the file; then the folder is fsynced. Once `write` resolves the
 * content survives a crash or power loss; until the rename, the file keeps its old content.
 *
 * A rename puts a new inode at the path, so the lock moves with it: the temp file is locked
 * before its rename and kept open as the lock. The inode opened at start stays locked too
 * while another name (a hard link made before the start) reaches it.
 *
 * The file is also a shared one: a person may edit it while the server runs. `changed`
 * tells whether it is still as this process last read or wrote it (same inode, size, mtime
 * and ctime), and `write` checks that again just before its rename and throws a
 * FileChangedError rather than overwrite someone's edit.
 */
export class DurableTextFile {
  /** The file's path (its real path: a symlinked file is written through the link). */
  readonly file: string;
  /** The file's name in messages. */
  readonly name: string;
  readonly #fs: FileSystem;
  readonly #folder: string;
  readonly #tempName: RegExp;
  /** The inode opened at start, locked while a hard link may still reach it. */
  #opened: FileHandle | undefined;
  /** The inode at the path as this process last read or wrote it, locked. */
  #current: FileHandle;
  #currentInode: { dev: bigint; ino: bigint };
  /** The file as this process last read or wrote it. */
  #version: FileVersion;
  #ownership: Ownership;

  private constructor(file: string, name: string, fs: FileSystem, handle: FileHandle, stats: BigIntStats) {
    this.file = file;
    this.name = name;
    this.#fs = fs;
    this.#folder = path.dirname(file);
    this.#tempName = new RegExp(`^${escapeRegExp(path.basename(file))}\\.\\d+\\.[0-9a-f]+\\.tmp$`);
    this.#opened = handle;
    this.#current = handle;
    this.#currentInode = { dev: stats.dev, ino: stats.ino };
    this.#version = versionOf(stats);
    this.#ownership = ownershipOf(stats);
  }

  /**
   * Takes the file at `file`, creating it (mode 0600, with the initial content, durably)
   * when it is missing. Throws a DataFileLockedError when another process (or another open
   * in this one) owns it, and a DataFileError when it cannot be opened for writing.
   */
  static async take(file: string, { name, fs, initial }: TakeOptions): Promise<DurableTextFile> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let handle: FileHandle;
      try {
        handle = await fs.open(file, 'r+');
      } catch (error) {
        if (codeOf(error) !== 'ENOENT') {
          const { reason } = systemErrorReason(error);
          throw new DataFileError(name, `The data file ${name} cannot be read and written by this process: ${reason}.`, { cause: error });
        }
        const created = await DurableTextFile.#create(file, { name, fs, initial });
        if (created) return created;
        continue; // Another process created it first: take it, or meet its lock.
      }
      try {
        await lockDataFile(handle, name);
        // Between our open and our lock, an owner that was stopping may have replaced the file: take what is there now.
        const locked = await handle.stat({ bigint: true });
        const atPath = await fs.stat(file, { bigint: true }).catch(() => undefined);
        if (atPath?.ino === locked.ino && atPath.dev === locked.dev) return new DurableTextFile(file, name, fs, handle, locked);
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
      await handle.close().catch(() => {});
    }
    throw new DataFileError(name, `The data file ${name} kept being replaced while this process tried to open it; try again.`);
  }

  /**
   * Creates the file, locked from its first moment: the temp file is written, locked and
   * fsynced, then hard-linked to the file's name, which fails rather than replace a file
   * another process created meanwhile (then the answer is `undefined`). A file system
   * without hard links gets a rename instead, which two servers creating one file at the
   * same instant could both think they won.
   */
  static async #create(file: string, { name, fs, initial }: TakeOptions): Promise<DurableTextFile | undefined> {
    const temp = tempPath(file);
    let handle: FileHandle | undefined;
    try {
      handle = await fs.open(temp, 'wx', NEW_FILE_MODE);
      await lockDataFile(handle, name);
      await handle.chmod(NEW_FILE_MODE);
      await writeAll(handle, initial());
      await handle.sync();
      try {
        await fs.link(temp, file);
      } catch (error) {
        if (codeOf(error) === 'EEXIST') return undefined;
        if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(codeOf(error) ?? '')) throw error;
        await fs.rename(temp, file);
      }
      await fs.unlink(temp).catch(() => {});
      await syncFolder(fs, path.dirname(file));
      const created = new DurableTextFile(file, name, fs, handle, await handle.stat({ bigint: true }));
      handle = undefined;
      return created;
    } catch (error) {
      const { reason } = systemErrorReason(error);
      throw new DataFileError(name, `The data file ${name} cannot be created: ${reason}.`, { cause: error });
    } finally {
      if (handle) {
        await handle.close().catch(() => {});
        await fs.unlink(temp).catch(() => {});
      }
    }
  }

  /**
   * The file's text. Read through a new open of the path, so an edit saved by rename (a new
   * inode) is what is read; that inode is then locked, or this throws a
   * DataFileLockedError when another process took it first.
   */
  async read(): Promise<string> {
    const handle = await this.#fs.open(this.file, 'r+');
    let adopted = false;
    try {
      // Before reading: an edit made during the read then shows as a change later.
      const stats = await handle.stat({ bigint: true });
      if (stats.ino !== this.#currentInode.ino || stats.dev !== this.#currentInode.dev) {
        await lockDataFile(handle, this.name);
        await this.#adopt(handle, stats);
        adopted = true;
      }
      const text = await handle.readFile('utf8');
      this.#version = versionOf(stats);
      this.#ownership = ownershipOf(stats);
      return text;
    } finally {
      if (!adopted) await handle.close().catch(() => {});
    }
  }

  /** Whether the file at the path is not the one this process last read or wrote (edited, replaced or removed). */
  async changed(): Promise<boolean> {
    try {
      return !sameVersion(versionOf(await this.#fs.stat(this.file, { bigint: true })), this.#version);
    } catch {
      return true;
    }
  }

  /**
   * Replaces the file with these bytes; resolves once they are durable. Throws a
   * FileChangedError, having written nothing, when the file changed since this process
   * last read or wrote it; a DurableWriteError when the disk fails.
   */
  async write(chunks: readonly Uint8Array[]): Promise<void> {
    const temp = tempPath(this.file);
    let step = 'open a temp file beside it';
    let handle: FileHandle | undefined;
    try {
      handle = await this.#fs.open(temp, 'wx', NEW_FILE_MODE);
      step = 'lock the temp file';
      // Still mode 0600 and ours: no one else can hold a lock on it yet.
      await lockDataFile(handle, this.name);
      step = "give the temp file the data file's owner and permissions";
      await keepOwnership(handle, this.#ownership);
      step = 'write the temp file';
      await writeAll(handle, chunks);
      step = 'fsync the temp file';
      await handle.sync();
      step = 'check the data file for changes';
      if (await this.changed()) throw new FileChangedError(`The data file ${this.name} was changed by someone else.`);
      step = 'rename the temp file over the data file';
      await this.#fs.rename(temp, this.file);
    } catch (error) {
      await handle?.close().catch(() => {});
      await this.#fs.unlink(temp).catch(() => {});
      if (error instanceof FileChangedError) throw error;
      throw new DurableWriteError(this.name, step, false, error);
    }
    // The folder's fsync makes the rename durable; meanwhile the new file's identity is read,
    // and it becomes the current, locked file even should the fsync fail (the file is in
    // place). The replaced file's handle is closed after that, off the write's path: its
    // last close frees the old file's blocks, which can take as long as the fsync itself.
    const folderSynced = syncFolder(this.#fs, this.#folder);
    folderSynced.catch(() => {});
    try {
      step = 'lock the new data file';
      void this.#adopt(handle, await handle.stat({ bigint: true }));
      step = 'fsync the folder';
      await folderSynced;
    } catch (error) {
      throw new DurableWriteError(this.name, step, true, error);
    }
  }

  /**
   * Whether a write could be made durable now, cheaply: writes and fsyncs a small temp file
   * in the folder and removes it, then asks whether the folder's file system has room for
   * the file once more (a write needs the new file beside the old until its rename). Throws
   * a DurableWriteError saying why not.
   */
  async probe(): Promise<void> {
    const temp = tempPath(this.file);
    let step = 'open a temp file beside it';
    try {
      const handle = await this.#fs.open(temp, 'wx', NEW_FILE_MODE);
      try {
        step = 'write a temp file';
        await handle.write(PROBE_BYTES);
        step = 'fsync a temp file';
        await handle.sync();
      } finally {
        await handle.close();
      }
      step = 'remove a temp file';
      await this.#fs.unlink(temp);
      step = 'find room for the next write';
      await this.#checkRoom();
    } catch (error) {
      await this.#fs.unlink(temp).catch(() => {});
      throw new DurableWriteError(this.name, step, false, error);
    }
  }

  /** Throws ENOSPC when the file system has less room than the file takes (root may use the reserved blocks). */
  async #checkRoom(): Promise<void> {
    const space = await this.#fs.statfs(this.#folder).catch(() => undefined);
    if (!space) return;
    const free = (process.getuid?.() === 0 ? space.bfree : space.bavail) * space.bsize;
    const needed = Number(this.#version.size);
    if (free >= needed) return;
    const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
    throw Object.assign(new Error(`no space left on device: ${megabytes(free)} free, a write needs ${megabytes(needed)}`), {
      code: 'ENOSPC',
    });
  }

  /**
   * Makes `handle` (of a new inode at the path, locked) the current lock at once, then lets
   * go of inodes no name reaches; never rejects.
   */
  async #adopt(handle: FileHandle, stats: BigIntStats): Promise<void> {
    const previous = this.#current;
    this.#current = handle;
    this.#currentInode = { dev: stats.dev, ino: stats.ino };
    this.#version = versionOf(stats);
    this.#ownership = ownershipOf(stats);
    if (previous !== this.#opened) await previous.close().catch(() => {});
    if (this.#opened && this.#opened !== handle) {
      const links = await this.#opened.stat().then(
        ({ nlink }) => nlink,
        () => 0,
      );
      if (links === 0) {
        await this.#opened.close().catch(() => {});
        this.#opened = undefined;
      }
    }
  }

  /**
   * Removes temp files that a crashed writer left behind. Only safe while this process owns
   * the file, since another owner's temp file may be in the middle of its write.
   */
  async removeStaleTempFiles(): Promise<string[]> {
    const names = await this.#fs.readdir(this.#folder);
    const stale = names.filter((name) => this.#tempName.test(name)).map((name) => path.join(this.#folder, name));
    for (const temp of stale) await this.#fs.unlink(temp).catch(() => {});
    return stale;
  }

  /** Closes the file, which releases its locks: another process may take it at once. */
  async release(): Promise<void> {
    const handles = new Set([this.#current, this.#opened]);
    this.#opened = undefined;
    for (const handle of handles) await handle?.close().catch(() => {});
  }
}

/** A temp file name of its own beside the file. */
const tempPath = (file: string) => `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
