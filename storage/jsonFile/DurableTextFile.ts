/** @module A text file replaced atomically and durably: temp file, fsync, rename, fsync folder. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type FileSystem, nodeFileSystem } from './FileSystem.js';

/** A write that failed; says whether the file may already hold the new content. */
export class DurableWriteError extends Error {
  override readonly name = 'DurableWriteError';
  /**
   * True when the rename had happened, so the new content may be in place (only its
   * durability is in doubt); false when the file still holds what it held before.
   */
  readonly replaced: boolean;

  constructor(message: string, replaced: boolean, cause: unknown) {
    super(message, { cause });
    this.replaced = replaced;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Opens a folder and fsyncs it, which makes a rename or a new entry in it durable. */
const syncFolder = async (fs: FileSystem, folder: string): Promise<void> => {
  // Windows cannot open a folder for fsync, and its renames are durable on their own terms.
  if (process.platform === 'win32') return;
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * A file that is only ever replaced whole. Each write goes to a temp file of its own in the
 * same folder (`<name>.<pid>.<random>.tmp`: the same folder so the rename is atomic, a name
 * of its own so no two writers ever share one), which is fsynced, renamed over the file,
 * and then the folder is fsynced, so once `write` resolves the content survives a crash or
 * power loss. Until the rename, the file keeps its old content, whole.
 */
export class DurableTextFile {
  /** The file's path. */
  readonly file: string;
  readonly #fs: FileSystem;
  readonly #folder: string;
  readonly #tempName: RegExp;
  /** The permissions of the file being replaced, given to each temp file so a rename keeps them. */
  #mode: number | undefined;

  constructor(file: string, fs: FileSystem = nodeFileSystem) {
    this.file = file;
    this.#fs = fs;
    this.#folder = path.dirname(file);
    this.#tempName = new RegExp(`^${escapeRegExp(path.basename(file))}\\.\\d+\\.[0-9a-f]+\\.tmp$`);
  }

  /** The file's text, or `undefined` when there is no file. */
  async read(): Promise<string | undefined> {
    try {
      this.#mode = (await this.#fs.stat(this.file)).mode & 0o7777;
      return await this.#fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Replaces the file with these bytes; resolves once they are durable. */
  async write(chunks: readonly Uint8Array[]): Promise<void> {
    const temp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    let step = 'write the temp file';
    let replaced = false;
    try {
      const handle = await this.#fs.open(temp, 'wx', this.#mode);
      try {
        const { bytesWritten } = await handle.writev(chunks as Uint8Array[]);
        const expected = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
        // libuv writes until done or failed; a short count would be a bug below us, not a retry case.
        if (bytesWritten !== expected) throw new Error(`wrote ${bytesWritten} of ${expected} bytes`);
        step = 'fsync the temp file';
        await handle.sync();
      } finally {
        await handle.close();
      }
      step = 'rename the temp file over the data file';
      await this.#fs.rename(temp, this.file);
      replaced = true;
      step = 'fsync the folder';
      await syncFolder(this.#fs, this.#folder);
    } catch (error) {
      if (!replaced) await this.#fs.unlink(temp).catch(() => {});
      const reason = error instanceof Error ? error.message : String(error);
      throw new DurableWriteError(`Could not ${step} for ${this.file}: ${reason}`, replaced, error);
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
}

/**
 * Creates a file's folder and any missing parents, durably: each new folder's parent is
 * fsynced, or a power loss could forget the folder and the file in it.
 */
export const createFolderDurably = async (file: string, fs: FileSystem = nodeFileSystem): Promise<void> => {
  const folder = path.dirname(file);
  const first = await fs.mkdir(folder, { recursive: true });
  if (first === undefined) return;
  for (let created = folder; ; created = path.dirname(created)) {
    await syncFolder(fs, path.dirname(created));
    if (created === first || path.dirname(created) === created) break;
  }
};
