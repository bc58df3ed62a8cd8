/** @module A text file this process owns and writes durably (replaced whole, or a change appended to its journal), noticing when someone else changed it. */
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { DataFileError, FileChangedError, systemErrorReason } from './errors.js';
import type { FilePart, ReadBack } from './FilePart.js';
import type { FileSystem } from './FileSystem.js';
import { type FileVersion, type Inode, inodeOf, type Ownership, ownershipOf, sameInode, sameVersion, versionOf } from './FileVersion.js';
import { readAll, readUpTo } from './fileBytes.js';
import { Journal, type JournalMark, type JournalSpot, journalPath } from './Journal.js';
import type { JournalChanges } from './JournalChanges.js';
import { lockDataFile } from './lockDataFile.js';
import { probeDisk } from './probeDisk.js';
import { replaceDurably } from './replaceDurably.js';
import { type TakeOptions, takeDataFile } from './takeDataFile.js';
import { removeStaleTempFiles } from './tempFiles.js';
import { type DataFileWatch, watchDataFile } from './watchDataFile.js';

/** While the folder's watch reports nothing, a write looks at the file and its journal at least this often (see `lookNeeded`). */
const LOOK_AGAIN_MILLISECONDS = 20;

/** A data file opened for one read (`readWith`). */
export interface FileReading {
  /** Its size in bytes as the read began. */
  readonly size: number;
  /** Its whole text, read from the start to the end. */
  text(): Promise<string>;
  /** Up to `length` of its bytes from `position`, into `into` when it is large enough: fewer only where the file ends sooner. */
  bytes(position: number, length: number, into?: Buffer): Promise<Buffer>;
}

/**
 * A file this process owns (holds the kernel's lock on, see `lockDataFile`), and its
 * journal beside it (`Journal`, `<file>.journal`): together one file. A change is appended
 * to the journal (`append`: one line, made durable, its own bytes only, whatever the file's
 * size); now and then the file is replaced whole with everything in it (`write`:
 * `replaceDurably`, a temp file of its own in the same folder, locked, given the file's
 * owner and permissions, fsynced, renamed over the file, then the folder fsynced), and the
 * journal emptied. Once either resolves the change survives a crash or power loss. The
 * lock on the file covers the journal: only the file's owner opens it.
 *
 * A rename puts a new inode at the path, so the lock moves with it: the temp file is locked
 * before its rename and kept open as the lock. The inode opened at start stays locked too
 * while another name (a hard link made before the start) reaches it.
 *
 * The file is also a shared one: a person may edit it while the server runs. `changed`
 * tells whether it is still as this process last read or wrote it (same inode, size, mtime
 * and ctime); `write` checks that again just before its rename and throws a
 * FileChangedError rather than go past someone's edit. An append is checked by its owner
 * before the change is made (see `append` and `lookNeeded`).
 */
export class DurableTextFile {
  /** The file's path (its real path: a symlinked file is written through the link). */
  readonly file: string;
  /** The file's name in messages. */
  readonly name: string;
  readonly #fs: FileSystem;
  readonly #journal: Journal;
  /** The inode opened at start, locked while a hard link may still reach it. */
  #opened: FileHandle | undefined;
  /** The inode at the path as this process last read or wrote it, locked. */
  #current: FileHandle;
  #currentInode: Inode;
  /** The file as this process last read or wrote it. */
  #version: FileVersion;
  #ownership: Ownership;
  /** The handle `readOwnBytes` reads through, and the version it was opened at. */
  #reader: { version: FileVersion; handle: Promise<FileHandle | undefined> } | undefined;
  /** Whether `release` ran: no reader is opened after it (it would never be closed). */
  #released = false;
  /** The watch on the folder, once `watch` started it. */
  #watch: DataFileWatch | undefined;
  /** When the last look that `lookNeeded` asked for began, and how many changes the watch had seen then. */
  #lastLook: { at: number; changes: number } | undefined;

  private constructor(file: string, name: string, fs: FileSystem, handle: FileHandle, stats: BigIntStats, journal: Journal) {
    this.file = file;
    this.name = name;
    this.#fs = fs;
    this.#journal = journal;
    this.#opened = handle;
    this.#current = handle;
    this.#currentInode = inodeOf(stats);
    this.#version = versionOf(stats);
    this.#ownership = ownershipOf(stats);
  }

  /**
   * Takes the file at `file`, creating it (mode 0600, with the initial content, durably)
   * when it is missing, and opens its journal (cutting off a line a crash tore). Throws a
   * DataFileLockedError when another process (or another open in this one) owns it, and a
   * DataFileError when it cannot be opened for writing.
   */
  static async take(file: string, options: TakeOptions): Promise<DurableTextFile> {
    const { handle, stats } = await takeDataFile(file, options);
    let journal: Journal;
    try {
      journal = await Journal.open(options.fs, file, options.name);
    } catch (error) {
      await handle.close().catch(() => {});
      const { reason } = systemErrorReason(error);
      throw new DataFileError(
        options.name,
        `The data file ${options.name} cannot be opened: its journal ${journalPath(file)} cannot be used: ${reason}.`,
        {
          cause: error,
        },
      );
    }
    return new DurableTextFile(file, options.name, options.fs, handle, stats, journal);
  }

  /** The file's text: `readWith` reading it whole. */
  read(): Promise<string> {
    return this.readWith((file) => file.text());
  }

  /**
   * What `use` makes of the file, read through a new open of the path, so an edit saved by
   * rename (a new inode) is what is read; that inode is then locked, or this throws a
   * DataFileLockedError when another process took it first. `use` reads the file whole or
   * a range at a time (a large file need never be in memory whole), until it settles.
   */
  async readWith<T>(use: (file: FileReading) => Promise<T>): Promise<T> {
    const handle = await this.#fs.open(this.file, 'r+');
    let adopted = false;
    try {
      // Before reading: an edit made during the read then shows as a change later.
      const stats = await handle.stat({ bigint: true });
      if (!sameInode(stats, this.#currentInode)) {
        await lockDataFile(handle, this.name);
        await this.#adopt(handle, stats);
        adopted = true;
      }
      // The file counts as read unless reading it failed: an edit `use` finds invalid is then
      // not read again until it changes (the caller keeps its problem), however often asked.
      let readFailed = false;
      const failed = (error: unknown): never => {
        readFailed = true;
        throw error;
      };
      try {
        return await use({
          size: Number(stats.size),
          text: () => handle.readFile('utf8').catch(failed),
          bytes: (position, length, into) => readUpTo(handle, position, length, into).catch(failed),
        });
      } finally {
        if (!readFailed) {
          this.#version = versionOf(stats);
          this.#ownership = ownershipOf(stats);
        }
      }
    } finally {
      if (!adopted) await handle.close().catch(() => {});
    }
  }

  /** Whether the file at the path is not the one this process last read or wrote (edited, replaced or removed). */
  async changed(): Promise<boolean> {
    let changed: boolean;
    try {
      changed = !sameVersion(versionOf(await this.#fs.stat(this.file, { bigint: true })), this.#version);
    } catch {
      changed = true;
    }
    // Whoever learns of a change, the next write looks again, whatever the watch has said.
    if (changed) this.#lastLook = undefined;
    return changed;
  }

  /**
   * Watches the folder for changes to the file and its journal, calling `onChange` soon after
   * one (see `watchDataFile`); with a watch, `lookNeeded` may spare writes a look. Returns
   * the function that stops it.
   */
  watch(onChange: () => void): () => void {
    const watch = watchDataFile(this.file, onChange);
    this.#watch = watch;
    return () => {
      watch.stop();
      if (this.#watch === watch) this.#watch = undefined;
    };
  }

  /**
   * Whether a write must look at the file and its journal on disk before it goes on
   * (`changed`, `checkJournalName`), and if so notes that it looks now. It must unless the
   * folder is watched, the watch has told of no change since the last look began, that look
   * began less than 20 ms ago, and no one has learnt of a change since. Under load a write
   * comes every few milliseconds, and a look is two trips to the threadpool that cost the
   * server's thread more than the write's own: with the watch reporting each change at once,
   * looking again so soon finds nothing it has not said. The 20 ms bound is for a change
   * the watch cannot see (one made over a network share). Without a watch, every write looks.
   */
  lookNeeded(): boolean {
    const now = performance.now();
    const watch = this.#watch?.watching ? this.#watch : undefined;
    const last = this.#lastLook;
    if (watch && last && last.changes === watch.changes && now - last.at < LOOK_AGAIN_MILLISECONDS) return false;
    this.#lastLook = watch && { at: now, changes: watch.changes };
    return true;
  }

  /**
   * `length` bytes from `offset` of the file as this process last wrote or read it, or
   * `undefined` when the file changed since (an edit) or cannot be read: an owner that kept
   * where some of its bytes lie in the file it wrote reads them back instead of making them
   * again. Read through one handle of that inode, kept until it is replaced (a whole write
   * copies a file of 100 MB a megabyte at a time: an open, two stats and a close for each
   * piece made a clean stop at 355,000 keys a fifth slower). After each read, the path is
   * checked to lead to that same version still: an edit saved in place shows in its size
   * and times, one saved by rename in its inode.
   */
  async readOwnBytes(offset: number, length: number, into?: Buffer): Promise<Buffer | undefined> {
    const version = this.#version;
    if (this.#released) return undefined;
    try {
      const reader = await this.#readerOf(version);
      if (!reader) return undefined;
      const bytes = await readAll(reader, offset, length, into);
      return version === this.#version && !(await this.changed()) ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /** A handle that reads the inode of `version` (the current one), opened at the first read of it; `undefined` when the path no longer leads to that version. */
  #readerOf(version: FileVersion): Promise<FileHandle | undefined> {
    if (this.#reader?.version !== version) {
      void this.#dropReader();
      // Kept as a promise: reads that start together share one open.
      this.#reader = { version, handle: this.#openReader(version) };
    }
    return this.#reader.handle;
  }

  async #openReader(version: FileVersion): Promise<FileHandle | undefined> {
    const handle = await this.#fs.open(this.file, 'r').catch(() => undefined);
    const stats = await handle?.stat({ bigint: true }).catch(() => undefined);
    if (stats && sameVersion(versionOf(stats), version)) return handle;
    await handle?.close().catch(() => {});
    return undefined;
  }

  /** Closes the reader of `readOwnBytes`: its inode was replaced, or the file is released. */
  async #dropReader(): Promise<void> {
    const reader = this.#reader;
    this.#reader = undefined;
    // A read under way keeps the descriptor open until it ends (FileHandle counts them).
    await (await reader?.handle)?.close().catch(() => {});
  }

  /** The changes in the journal, oldest first: what the file's text does not hold yet. */
  journal(): Promise<JournalChanges> {
    return this.#journal.read();
  }

  /**
   * Puts the journal's lines back under its name when someone removed, moved or replaced
   * its file while this process appends to it, and answers true then (see
   * `Journal.checkName`; throws a DurableWriteError when it cannot, and the next write must
   * be whole).
   */
  async checkJournalName(): Promise<boolean> {
    try {
      const putBack = await this.#journal.checkName();
      if (putBack) this.#lastLook = undefined;
      return putBack;
    } catch (error) {
      this.#lastLook = undefined;
      throw error;
    }
  }

  /** The sizes of the file (as last read or written) and of its journal, in bytes, and whether the journal may hold a failed change. */
  get sizes(): { file: number; journal: number; dirty: boolean } {
    return { file: Number(this.#version.size), journal: this.#journal.size, dirty: this.#journal.dirty };
  }

  /**
   * Appends one change (text without a line break) to the journal; resolves once it is
   * durable. Throws a DurableWriteError when the disk fails. It does not look for an edit
   * itself: its owner asks `changed()` before making the change when `lookNeeded()` says
   * so, in the same turn of its write queue (PetFile does), where a second look would cost
   * every write another trip to the threadpool and only narrow a window of microseconds.
   */
  append(change: string): Promise<JournalSpot> {
    return this.#journal.append(change);
  }

  /** Bytes of the journal as `Journal.readBytes` gives them back: text this process appended, or `undefined`. */
  readJournalBytes(generation: number, offset: number, length: number, into?: Buffer): Promise<Buffer | undefined> {
    return this.#journal.readBytes(generation, offset, length, into);
  }

  /** What a whole write's deferred parts read back: the file being replaced and the journal, or a throw saying why not. */
  readonly #readBack: ReadBack = {
    readOwnBytes: async (offset, length, into) => {
      const bytes = await this.readOwnBytes(offset, length, into);
      if (bytes) return bytes;
      if (await this.changed()) throw new FileChangedError(`The data file ${this.name} was changed by someone else.`);
      throw new Error(`its own bytes ${offset} to ${offset + length} could not be read back`);
    },
    readJournalBytes: async (generation, offset, length, into) => {
      const bytes = await this.readJournalBytes(generation, offset, length, into);
      if (bytes) return bytes;
      throw new Error(`its journal no longer holds bytes ${offset} to ${offset + length}`);
    },
  };

  /**
   * Replaces the file's content with these parts (deferred ones read back what they copy
   * from the file being replaced, see FilePart), which hold every change in the journal,
   * then empties the journal; resolves once the bytes are durable. Throws a
   * FileChangedError, having written nothing, when the file changed since this process last
   * read or wrote it; a DurableWriteError when the disk fails.
   */
  async write(parts: readonly FilePart[]): Promise<void> {
    await this.replace(parts);
    // The new file holds the journal's changes. Should emptying it fail, they are read
    // again at the next open and found there already (a journal's reader skips those).
    await this.#journal.clear().catch(() => {});
  }

  /** Where the journal stands now: bytes that hold what the file's content holds now are written with `replace`, then `keepJournalFrom` this. */
  get journalMark(): JournalMark {
    return this.#journal.mark;
  }

  /**
   * Replaces the file's content with these bytes, leaving the journal as it is; resolves once
   * they are durable. Appends may go on meanwhile: once it resolves, `keepJournalFrom` the
   * mark taken when the bytes were made drops the lines they hold. Throws as `write` does.
   */
  async replace(parts: readonly FilePart[]): Promise<void> {
    await replaceDurably(
      {
        fs: this.#fs,
        file: this.file,
        name: this.name,
        ownership: this.#ownership,
        changed: () => this.changed(),
        adopt: (handle, stats) => void this.#adopt(handle, stats),
        readBack: this.#readBack,
      },
      parts,
    );
  }

  /**
   * Keeps only the journal's lines appended since `mark`, once the file was replaced with
   * bytes holding the changes before it (see `Journal.keepFrom`); never with an append under way.
   */
  keepJournalFrom(mark: JournalMark): Promise<void> {
    return this.#journal.keepFrom(mark);
  }

  /**
   * Whether a write could be made durable now, cheaply (see `probeDisk`): throws a
   * DurableWriteError saying why not.
   */
  probe(): Promise<void> {
    // Room for the file written whole with its journal's changes, beside the file as it is.
    return probeDisk(this.#fs, this.file, this.name, Number(this.#version.size) + this.#journal.size);
  }

  /**
   * Makes `handle` (of a new inode at the path, locked) the current lock at once, then lets
   * go of inodes no name reaches; never rejects.
   */
  async #adopt(handle: FileHandle, stats: BigIntStats): Promise<void> {
    const previous = this.#current;
    this.#current = handle;
    this.#currentInode = inodeOf(stats);
    this.#version = versionOf(stats);
    this.#ownership = ownershipOf(stats);
    await this.#dropReader();
    if (previous !== this.#opened) await previous.close().catch(() => {});
    // Held in a constant: release() may clear #opened (and close it) while stat() is awaited.
    const opened = this.#opened;
    if (opened && opened !== handle) {
      const links = await opened.stat().then(
        ({ nlink }) => nlink,
        () => 0,
      );
      if (links === 0 && this.#opened === opened) {
        this.#opened = undefined;
        await opened.close().catch(() => {});
      }
    }
  }

  /** Removes temp files that a crashed writer left behind (the file's and the journal's); only while this process owns the file. */
  async removeStaleTempFiles(): Promise<string[]> {
    return [...(await removeStaleTempFiles(this.#fs, this.file)), ...(await removeStaleTempFiles(this.#fs, journalPath(this.file)))];
  }

  /** Closes the file and its journal (removed when empty), which releases its locks: another process may take it at once. */
  async release(): Promise<void> {
    this.#released = true;
    await this.#journal.close();
    await this.#dropReader();
    const handles = new Set([this.#current, this.#opened]);
    this.#opened = undefined;
    for (const handle of handles) await handle?.close().catch(() => {});
  }
}
