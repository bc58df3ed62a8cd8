/** @module The journal beside a durable file: each change one checksummed line, appended durably; a torn last line is known and dropped. */
import { type BigIntStats, constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DurableWriteError } from './errors.js';
import type { FileSystem } from './FileSystem.js';
import { type Inode, inodeOf, sameInode } from './FileVersion.js';
import { readAll, readUpTo, writeAll } from './fileBytes.js';
import { syncFolder } from './folders.js';
import { freeableBuffer, freeBuffer } from './freeableBuffer.js';
import { CHANGE_OFFSET, checksumOf, JournalChanges, NO_CHANGES } from './JournalChanges.js';
import { NEW_FILE_MODE, tempPath } from './tempFiles.js';

/** Where the journal stood when a whole write of the data began: the lines before it are in that write. */
export interface JournalMark {
  /** Which journal file it is: emptying or replacing the journal makes a new one. */
  generation: number;
  /** Its size then, in bytes. */
  size: number;
}

/** Where one change's text lies in the journal: which journal file (see JournalMark), the byte it starts at, and its length in bytes. */
export interface JournalSpot {
  generation: number;
  offset: number;
  length: number;
}

/** Whether the system has O_DSYNC: each write to the journal is then durable on return. */
const WRITES_ARE_DURABLE = constants.O_DSYNC !== undefined;

/** How the journal is opened: read and write, each write durable on return where the system can. */
const OPEN_FLAGS = WRITES_ARE_DURABLE ? constants.O_RDWR | constants.O_DSYNC : constants.O_RDWR;

/** The journal's path: beside the file, named after it. */
export const journalPath = (file: string): string => `${file}.journal`;

/** One line: the checksum, a space, the change (text without a line break), a line break. */
const lineOf = (change: string): string => `${checksumOf(change)} ${change}\n`;

/**
 * The whole lines among the first `length` bytes of an open journal (or as many as it
 * holds), and how many bytes were read. Their bytes are in a freeable buffer, which the
 * changes' reader frees once it has replayed them (see `JournalChanges.free`).
 */
const readLines = async (handle: FileHandle, file: string, length: number): Promise<{ changes: JournalChanges; readBytes: number }> => {
  const into = freeableBuffer(length);
  try {
    const bytes = await readUpTo(handle, 0, length, into);
    return { changes: JournalChanges.read(bytes, journalPath(file)), readBytes: bytes.byteLength };
  } catch (error) {
    freeBuffer(into);
    throw error;
  }
};

/** Reads a journal without taking anything: its whole lines, or none when it is missing (for a copy of a file in use). */
export const readJournal = async (fs: FileSystem, file: string): Promise<JournalChanges> => {
  try {
    return JournalChanges.read(await fs.readFile(journalPath(file)), journalPath(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return NO_CHANGES;
    throw error;
  }
};

/**
 * The changes made to a file since it was last written whole, one line each
 * (`<checksum> <change>\n`), each appended and made durable before `append` resolves, so a
 * change costs its own bytes, not the file's. Only the owner of the file's lock opens it.
 * A line a crash tore is known by its checksum and cut off when the journal is opened; a
 * change that failed to append leaves the journal `dirty` (it may hold that change), and
 * the owner then writes the file whole and `clear`s it.
 */
export class Journal {
  readonly #fs: FileSystem;
  readonly #file: string;
  readonly #name: string;
  /** Open once the journal exists; writes to it are durable on return where the system has O_DSYNC. */
  #handle: FileHandle | undefined;
  /** The file `#handle` reads and writes, to tell whether the journal's name still leads to it (see `checkName`). */
  #inode: Inode | undefined;
  #size = 0;
  #dirty = false;
  /** Someone removed, moved or replaced the journal's file: its lines are only in the file still open here. */
  #lost = false;
  #generation = 0;
  /** The journal the last `keepFrom` replaced, and the byte of it its first kept line started at (here it starts at 0). */
  #kept: { generation: number; from: number } | undefined;
  /** The changes `open` read, kept for the first `read` (a start's) unless the journal changed before it, so a start reads and checks the journal once. */
  #openedChanges: JournalChanges | undefined;

  private constructor(fs: FileSystem, file: string, name: string) {
    this.#fs = fs;
    this.#file = file;
    this.#name = name;
  }

  /**
   * Opens the journal of `file` (whose lock this process holds), when there is one, and cuts
   * off a torn last line, durably, before anyone reads it.
   */
  static async open(fs: FileSystem, file: string, name: string): Promise<Journal> {
    const journal = new Journal(fs, file, name);
    let size: number;
    try {
      size = await journal.#openHandle(false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return journal;
      throw error;
    }
    const handle = journal.#handle!;
    const { changes, readBytes } = await readLines(handle, file, size);
    const { validBytes } = changes;
    if (validBytes < readBytes) {
      await handle.truncate(validBytes);
      await handle.datasync();
    }
    journal.#size = validBytes;
    journal.#openedChanges = changes;
    return journal;
  }

  /** The journal's size in bytes (its whole lines). */
  get size(): number {
    return this.#size;
  }

  /** Where the journal stands now (see JournalMark). */
  get mark(): JournalMark {
    return { generation: this.#generation, size: this.#size };
  }

  /**
   * Whether the file must be written whole before the journal is trusted again: an append
   * failed in a way that may have left its change in it, or its name no longer leads to
   * the file holding its lines (see `checkName`).
   */
  get dirty(): boolean {
    return this.#dirty || this.#lost;
  }

  /**
   * Checks that the journal's name still leads to the file this process appends to. It is
   * not to be touched while the server runs, but a person tidying a folder may remove, move
   * or replace it; the lines appended since the last whole write are then only in the file
   * held open here, which the next start would not find. Their copy is then put back under
   * the name, as `keepFrom` puts its lines (durably, by rename), and this answers true. An
   * empty journal is let go instead: the next append makes a new one. Never with an append
   * under way. Throws a DurableWriteError when the copy cannot be made; the journal is then
   * `dirty` (its owner writes the file whole, every change in it) until `clear`, which makes
   * a new journal under the name.
   */
  async checkName(): Promise<boolean> {
    const inode = this.#inode;
    if (!inode || this.#lost) return false;
    let stats: BigIntStats | undefined;
    try {
      stats = await this.#fs.stat(journalPath(this.#file), { bigint: true });
    } catch (error) {
      // Only a name that leads nowhere is known to be lost; a disk that cannot say is asked again next time.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return false;
    }
    // Compared with the inode the check began with: a `keepFrom` meanwhile renamed its own file in.
    if ((stats && sameInode(stats, inode)) || inode !== this.#inode) return false;
    if (this.#size === 0 && !this.#dirty) {
      await this.#letGo();
      return false;
    }
    this.#lost = true;
    await this.#copyFrom(0);
    this.#lost = false;
    return true;
  }

  /** Lets go of the changes `open` read: the journal changed before a start read them, so `read` reads it again. */
  #dropOpenedChanges(): void {
    this.#openedChanges?.free();
    this.#openedChanges = undefined;
  }

  /** The changes in the journal, oldest first; their reader frees them once replayed. */
  async read(): Promise<JournalChanges> {
    const opened = this.#openedChanges;
    this.#openedChanges = undefined;
    if (opened) return opened;
    if (!this.#handle) return NO_CHANGES;
    return (await readLines(this.#handle, this.#file, this.#size)).changes;
  }

  /**
   * Appends one change (text without a line break) and resolves, once it is durable, with
   * where its text lies (for `readBytes`). Throws a DurableWriteError when the disk fails;
   * its `replaced` says whether the change may be in the journal anyway (the journal is then
   * `dirty`).
   */
  async append(change: string): Promise<JournalSpot> {
    this.#dropOpenedChanges();
    const line = lineOf(change);
    const length = Buffer.byteLength(line);
    let step = 'create the journal';
    let touched = false;
    try {
      if (!this.#handle) await this.#openHandle(true);
      step = 'append to the journal';
      touched = true;
      // Written from the text: Node makes its bytes in C++ and frees them at once, where a
      // Buffer per line would be garbage that lingers until the collector runs (a keyed
      // flood appends over 100 MB of lines a minute, which showed in the process's RSS).
      let done = (await this.#handle!.write(line, this.#size, 'utf8')).bytesWritten;
      // A short write (a disk filling up) is followed by another, which says why it cannot go on.
      const bytes = done < length ? Buffer.from(line) : undefined;
      while (done < length) {
        const { bytesWritten } = await this.#handle!.write(bytes!, done, length - done, this.#size + done);
        if (bytesWritten === 0) throw new Error(`wrote ${done} of ${length} bytes`);
        done += bytesWritten;
      }
      step = 'fdatasync the journal';
      if (!WRITES_ARE_DURABLE) await this.#handle!.datasync();
    } catch (error) {
      // Cut back what may have landed; if that fails too, the journal may hold the change.
      const cut =
        !touched ||
        (await this.#handle!.truncate(this.#size)
          .then(() => this.#handle!.datasync())
          .then(
            () => true,
            () => false,
          ));
      if (!cut) this.#dirty = true;
      throw new DurableWriteError(this.#name, step, !cut, error);
    }
    // The line is the change's bytes between its checksum and space and its line break.
    const spot = { generation: this.#generation, offset: this.#size + CHANGE_OFFSET, length: length - CHANGE_OFFSET - 1 };
    this.#size += length;
    return spot;
  }

  /**
   * `length` bytes of the journal from `offset` of journal file `generation` (see
   * `append`'s spots), or `undefined` when that journal was emptied or replaced since, or
   * the bytes cannot be read: its owner reads back text it appended instead of making it
   * again. Appends never change bytes already written, and emptying or replacing the
   * journal changes its generation, checked before and after the read; the lines the last
   * `keepFrom` kept are read where it copied them. Read into `into` when it is large enough.
   */
  async readBytes(generation: number, offset: number, length: number, into?: Buffer): Promise<Buffer | undefined> {
    // Lines the last `keepFrom` copied into this journal are found where they went.
    if (this.#kept && generation === this.#kept.generation && generation + 1 === this.#generation && offset >= this.#kept.from) {
      generation++;
      offset -= this.#kept.from;
    }
    const handle = this.#handle;
    if (generation !== this.#generation || !handle || offset < 0 || offset + length > this.#size) return undefined;
    try {
      const bytes = await readAll(handle, offset, length, into);
      return generation === this.#generation ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /** Empties the journal durably: the file was written whole with every change in it. */
  async clear(): Promise<void> {
    this.#dropOpenedChanges();
    if (!this.#handle || (this.#size === 0 && !this.dirty)) return;
    this.#generation++;
    this.#kept = undefined;
    if (this.#lost) {
      // A new, empty journal under the name (over whatever took it), so a start does not
      // read lines the file already holds, or someone else's. Should that fail, the next
      // append makes it.
      await this.#letGo();
      this.#lost = false;
      await this.#openHandle(true);
      return;
    }
    await this.#handle.truncate(0);
    await this.#handle.datasync();
    this.#size = 0;
    this.#dirty = false;
  }

  /**
   * Keeps only the lines appended since `mark`: the file was written whole with the changes
   * before it, while appends went on. The later lines are copied to a journal file of their
   * own, made durable, and renamed over this one, so a crash at any moment leaves one whole
   * journal or the other (the older one's first lines are in the file, and a reader skips
   * those). Does nothing when the journal was emptied or replaced since `mark`, or may hold
   * a failed change (the next write is whole then). Throws a DurableWriteError when the disk
   * fails before the rename; the journal is then as it was.
   */
  async keepFrom(mark: JournalMark): Promise<void> {
    if (mark.generation !== this.#generation || this.dirty || !this.#handle || mark.size > this.#size) return;
    if (mark.size === this.#size) return this.clear();
    await this.#copyFrom(mark.size);
  }

  /**
   * Copies the lines from byte `from` on to a journal file of their own, made durable and
   * renamed over the journal's name; appends go to it from then on. Throws a
   * DurableWriteError when the disk fails before the rename; the journal is then as it was.
   */
  async #copyFrom(from: number): Promise<void> {
    const current = this.#handle;
    if (!current) return;
    this.#dropOpenedChanges();
    const journal = journalPath(this.#file);
    const temp = tempPath(journal);
    let step = 'read the journal';
    let handle: FileHandle | undefined;
    const length = this.#size - from;
    // Megabytes under a flood, needed only until they are written again: freed once the copy is done, not at a full collection.
    const later = freeableBuffer(length);
    let inode: Inode;
    try {
      await readAll(current, from, length, later);
      step = 'write a new journal';
      handle = await this.#fs.open(temp, OPEN_FLAGS | constants.O_CREAT | constants.O_EXCL, NEW_FILE_MODE);
      await writeAll(handle, [later]);
      step = 'fsync the new journal';
      await handle.sync();
      inode = inodeOf(await handle.stat({ bigint: true }));
      step = 'rename the new journal over the journal';
      await this.#fs.rename(temp, journal);
    } catch (error) {
      await handle?.close().catch(() => {});
      await this.#fs.unlink(temp).catch(() => {});
      throw new DurableWriteError(this.#name, step, false, error);
    } finally {
      freeBuffer(later);
    }
    // The new journal is in place: appends go to it from now on, whatever comes next.
    this.#handle = handle;
    this.#inode = inode;
    this.#size = length;
    this.#kept = { generation: this.#generation, from };
    this.#generation++;
    await current.close().catch(() => {});
    // Until the folder's fsync, a crash may bring the older journal back: it still holds every line.
    await syncFolder(this.#fs, path.dirname(this.#file)).catch(() => {});
  }

  /** Closes the journal, removing it when empty, so a stopped file is its document alone. */
  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    if (!handle) return;
    if (this.#size === 0 && !this.#dirty) {
      await this.#fs.unlink(journalPath(this.#file)).catch(() => {});
      await syncFolder(this.#fs, path.dirname(this.#file)).catch(() => {});
    }
    await handle.close().catch(() => {});
  }

  /**
   * Opens the journal's file, or with `create` makes it anew, empty (over anything under its
   * name: there is no journal as far as this process knows), durably: its name fsynced
   * into the folder. Answers the file's size as opened, for `open` to read it.
   */
  async #openHandle(create: boolean): Promise<number> {
    const flags = create ? OPEN_FLAGS | constants.O_CREAT | constants.O_TRUNC : OPEN_FLAGS;
    const handle = await this.#fs.open(journalPath(this.#file), flags, NEW_FILE_MODE);
    let stats: BigIntStats;
    try {
      if (create) {
        await handle.sync();
        await syncFolder(this.#fs, path.dirname(this.#file));
      }
      stats = await handle.stat({ bigint: true });
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    this.#inode = inodeOf(stats);
    this.#handle = handle;
    this.#size = 0;
    return Number(stats.size);
  }

  /** Closes the journal's file without touching its name: the next append makes a new one. */
  async #letGo(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    this.#inode = undefined;
    this.#size = 0;
    this.#dirty = false;
    await handle?.close().catch(() => {});
  }
}
