/** @module A text file this process owns and writes durably (replaced whole, or its changed bytes in place), noticing when someone else changed it. */
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { DataFileError } from './DataFileError.js';
import { DurableWriteError, FileChangedError } from './DurableWriteError.js';
import type { FileSystem } from './FileSystem.js';
import { type FileVersion, type Ownership, ownershipOf, sameVersion, versionOf } from './FileVersion.js';
import { lockDataFile } from './lockDataFile.js';
import { planInPlaceWrite } from './planInPlaceWrite.js';
import { probeDisk } from './probeDisk.js';
import { replaceDurably } from './replaceDurably.js';
import { systemErrorReason } from './systemErrorReason.js';
import { type TakeOptions, takeDataFile } from './takeDataFile.js';
import { removeStaleTempFiles } from './tempFiles.js';
import { type InPlaceStep, openUndoFile, recoverInPlaceWrite, type UndoFile, undoInPlace, undoPath, writeInPlace } from './writeInPlace.js';

/**
 * From this size on, a write that changes little of the file writes only its changed bytes
 * in place (see `write`); below it the whole file is replaced, which costs little there and
 * never shows a reader a half-written file.
 */
export const IN_PLACE_MIN_BYTES = 256 * 1024;
/** A write in place may carry (old and new bytes together, the undo record's size) at most this share of the file. */
const IN_PLACE_MAX_SHARE = 1 / 8;

/**
 * A file this process owns (holds the kernel's lock on, see `lockDataFile`) and writes in
 * one of two ways: replaced whole (`replaceDurably`: a temp file of its own in the same
 * folder, locked, given the file's owner and permissions, fsynced, renamed over the file,
 * then the folder fsynced; until the rename, the file keeps its old content), or, when it
 * is large and little of it changes, its changed bytes written in place after an undo
 * record (`writeInPlace`; `take` undoes a write a crash tore). Once `write` resolves the
 * content survives a crash or power loss.
 *
 * A rename puts a new inode at the path, so the lock moves with it: the temp file is locked
 * before its rename and kept open as the lock. The inode opened at start stays locked too
 * while another name (a hard link made before the start) reaches it.
 *
 * The file is also a shared one: a person may edit it while the server runs. `changed`
 * tells whether it is still as this process last read or wrote it (same inode, size, mtime
 * and ctime), and `write` checks that again just before its rename (or its write in place)
 * and throws a FileChangedError rather than overwrite someone's edit.
 */
export class DurableTextFile {
  /** The file's path (its real path: a symlinked file is written through the link). */
  readonly file: string;
  /** The file's name in messages. */
  readonly name: string;
  readonly #fs: FileSystem;
  /** The inode opened at start, locked while a hard link may still reach it. */
  #opened: FileHandle | undefined;
  /** The inode at the path as this process last read or wrote it, locked. */
  #current: FileHandle;
  #currentInode: { dev: bigint; ino: bigint };
  /** The file as this process last read or wrote it. */
  #version: FileVersion;
  #ownership: Ownership;
  /** The bytes last written, as the buffers they were written from, or `undefined` when not known (read from disk). */
  #written: readonly Uint8Array[] | undefined;
  /** The undo record's file, open once the first write in place needs it. */
  #undo: UndoFile | undefined;

  private constructor(file: string, name: string, fs: FileSystem, handle: FileHandle, stats: BigIntStats) {
    this.file = file;
    this.name = name;
    this.#fs = fs;
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
  static async take(file: string, options: TakeOptions): Promise<DurableTextFile> {
    const { handle, stats } = await takeDataFile(file, options);
    try {
      // Before anyone reads it: a write in place that a crash tore is undone first.
      if ((await recoverInPlaceWrite(options.fs, file, handle)) !== 'none') {
        return new DurableTextFile(file, options.name, options.fs, handle, await handle.stat({ bigint: true }));
      }
    } catch (error) {
      await handle.close().catch(() => {});
      const { reason } = systemErrorReason(error);
      throw new DataFileError(
        options.name,
        `The data file ${options.name} cannot be opened: the undo record ${undoPath(file)} of its last write cannot be used: ${reason}.`,
        { cause: error },
      );
    }
    return new DurableTextFile(file, options.name, options.fs, handle, stats);
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
      this.#written = undefined;
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
   * Replaces the file's content with these bytes; resolves once they are durable. Throws a
   * FileChangedError, having written nothing, when the file changed since this process
   * last read or wrote it; a DurableWriteError when the disk fails.
   *
   * A large file whose new bytes differ from the last written in a small part only (new
   * animals at the end, the next id at the start) gets those parts written in place, after
   * an undo record of them (`writeInPlace`): a few kilobytes per write rather than the
   * whole file, so a write's cost does not grow with the file. Otherwise the file is
   * replaced whole (`replaceDurably`). Either way the file on disk is one whole document
   * once the write returns, and after a crash once it is opened again.
   */
  async write(chunks: readonly Uint8Array[]): Promise<void> {
    const size = chunks.reduce((total, chunk) => total + chunk.byteLength, 0);
    const plan =
      this.#written && size >= IN_PLACE_MIN_BYTES ? planInPlaceWrite(this.#written, chunks, size * IN_PLACE_MAX_SHARE) : undefined;
    // Unknown until this write is known to have landed whole.
    this.#written = undefined;
    if (plan) await this.#writeInPlace(plan);
    else {
      await replaceDurably(
        {
          fs: this.#fs,
          file: this.file,
          name: this.name,
          ownership: this.#ownership,
          changed: () => this.changed(),
          adopt: (handle, stats) => void this.#adopt(handle, stats),
        },
        chunks,
      );
      // The record of a write in place to the replaced inode says nothing any more; cleared,
      // so that inode's number, reused by a later file, can never make it look like one of its.
      if (this.#undo)
        await this.#undo.handle
          .truncate(0)
          .then(() => this.#undo?.handle.datasync())
          .catch(() => {});
    }
    this.#written = chunks;
  }

  async #writeInPlace(plan: NonNullable<ReturnType<typeof planInPlaceWrite>>): Promise<void> {
    if (await this.changed()) throw new FileChangedError(`The data file ${this.name} was changed by someone else.`);
    const progress: InPlaceStep = { step: 'open the undo record', touched: false };
    let stats: BigIntStats;
    try {
      this.#undo ??= await openUndoFile(this.#fs, this.file);
      stats = await writeInPlace(this.#current, this.#undo, this.#currentInode.ino, plan, progress);
    } catch (error) {
      // Put the file back as it was (the record on disk does it at the next open otherwise).
      const undone =
        !progress.touched ||
        (await undoInPlace(this.#current, plan).then(
          () => true,
          () => false,
        ));
      throw new DurableWriteError(this.name, progress.step, !undone, error);
    }
    this.#version = versionOf(stats);
  }

  /**
   * Whether a write could be made durable now, cheaply (see `probeDisk`): throws a
   * DurableWriteError saying why not.
   */
  probe(): Promise<void> {
    return probeDisk(this.#fs, this.file, this.name, Number(this.#version.size));
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

  /** Removes temp files that a crashed writer left behind; only while this process owns the file. */
  removeStaleTempFiles(): Promise<string[]> {
    return removeStaleTempFiles(this.#fs, this.file);
  }

  /** Closes the file, which releases its locks: another process may take it at once. */
  async release(): Promise<void> {
    if (this.#undo && this.#written) {
      // The last write is whole: its record would undo nothing. Removed while the lock is held.
      await this.#fs.unlink(undoPath(this.file)).catch(() => {});
    }
    const handles = new Set([this.#current, this.#opened, this.#undo?.handle]);
    this.#opened = undefined;
    this.#undo = undefined;
    for (const handle of handles) await handle?.close().catch(() => {});
  }
}
