/** @module A lowdb adapter for any data kept in one durable text file and its journal, given how to parse, serialise and replay it. */
import type { Adapter } from 'lowdb';
import type { DurableTextFile, FileReading } from './DurableTextFile.js';
import type { FilePart } from './FilePart.js';
import type { JournalSpot } from './Journal.js';
import type { JournalChanges } from './JournalChanges.js';

/** How the data is written down: text to data and back, and a change to a line and back. */
export interface DataFormat<T, C> {
  /**
   * The data in the file (read whole, or a range at a time) with the journal's changes
   * applied, oldest first; throws when either is not valid. Must skip what the data already
   * holds: a crash between writing the file whole and emptying the journal leaves changes
   * the file has. Given the changes with the file, a format may read them beside the
   * file's parse (in another thread: see `JournalChanges.lend`).
   */
  parse(file: FileReading, changes: JournalChanges): T | Promise<T>;
  /** The file's bytes for the data, in parts (see FilePart: a deferred part copies bytes of the file it replaces, or of its journal). */
  serialize(data: T): FilePart[];
  /** A change as one line of text (no line break), for the journal. */
  encodeChange(change: C): string;
}

/** The journal is never written into the file before it holds this many bytes… */
export const JOURNAL_MIN_BYTES = 8 * 1024 * 1024;

/**
 * …and then once it outgrows the file, or once a start would read more than this: the
 * file's bytes and the journal's, each of those counted JOURNAL_BYTE_WEIGHT times. A start
 * parses the file and replays the journal, so this bounds it (at a million animals, a file
 * of about 110 MB, a journal as large as the file would more than double the start).
 * Below it, a whole write comes once per the file's size of journal, so its cost per create
 * stays about a line's. Beside a million animals and 100,000 keys (a file of about 101
 * MiB) this leaves about 9.7 MiB of journal, where 128 MiB here and a least journal of 16
 * MiB left 16 MiB: a start after a crash with that much served after 2.50-2.60 s, against
 * 1.99-2.13 s clean, and after over 3 s on a busy two-core host.
 *
 * A file past this (keys piled up in a flood of keyed creates) already takes a start
 * longer than this allows; its journal may grow to half of what the file passes it by, so a
 * start reads under twice the file so counted, and a whole write comes once per at least a
 * quarter of the file's size of journal past 240 MiB (with the least journal alone, once per
 * 8 MiB whatever the file's size). A file seeded with 500,000 animals and keys (155 MiB) took
 * keyed creates under wrk until it held 228 MiB: written whole every 8 MiB of journal, the
 * server wrote 1.96 GB for 279,000 creates; with this, 0.50 GB for 282,000, and 7 % less of
 * its CPU a create.
 */
export const START_BYTES = 120 * 1024 * 1024;

/**
 * What a journal's byte costs a start against a file's. Measured with the built bin on two
 * cores, 100,000 keys in the file (3 rounds on a busy host): 530,000 animals (67 MB) served
 * after 1.5-1.9 s, with 33.5 MB of journal after 2.7-3.3 s, with 67 MB after 3.9-4.6 s; a
 * million (106 MB) after 2.2-2.5 s, with 16.7 MB of journal after 2.6-3.4 s. Counted once,
 * a journal beside the smaller file could reach 64 MiB, and a start after a crash there took
 * more than twice the clean one.
 */
export const JOURNAL_BYTE_WEIGHT = 2;

/**
 * lowdb's `Adapter` over a durable text file, as lowdb's own `DataFile` is over its text
 * file: `read` parses the file and replays its journal, `write` serialises the whole data
 * into the file (emptying the journal), and `append` adds one change to the journal; both
 * resolve only once the bytes are durable. (lowdb's `JSONFile` writes through steno, which
 * never fsyncs and gives every writer the same temp name.)
 */
export class DurableDataFile<T, C> implements Adapter<T> {
  readonly #text: DurableTextFile;
  readonly #format: DataFormat<T, C>;
  readonly #journalMinBytes: number;

  /**
   * The data in `text`, written down by `format`; the journal is written into the file once
   * it holds `journalMinBytes` and outgrows the file or, with the file, START_BYTES.
   */
  constructor(text: DurableTextFile, format: DataFormat<T, C>, journalMinBytes = JOURNAL_MIN_BYTES) {
    this.#text = text;
    this.#format = format;
    this.#journalMinBytes = journalMinBytes;
  }

  /** The data, the journal's changes applied; throws when the file is not valid data (lowdb then keeps what it had). */
  async read(): Promise<T | null> {
    const changes = await this.#text.journal();
    try {
      return await this.#text.readWith(async (file) => this.#format.parse(file, changes));
    } finally {
      changes.free();
    }
  }

  /** Replaces the file with this data and empties the journal; resolves once it is durable. */
  async write(data: T): Promise<void> {
    await this.#text.write(this.#format.serialize(data));
  }

  /**
   * Writes the data whole while appends to the journal go on. Its bytes and the journal's
   * place are taken now (call it where no append is under way); `written` resolves once the
   * file is replaced durably (or rejects as `write` does, the journal untouched). Then
   * `finish`, where no append is under way, drops the journal's lines the file now holds,
   * keeping those appended meanwhile. Until it has, the file and the whole journal are a
   * valid pair: replay skips what the file holds.
   */
  writeAlongside(data: T): { written: Promise<void>; finish: () => Promise<void> } {
    const mark = this.#text.journalMark;
    const written = this.#text.replace(this.#format.serialize(data));
    return { written, finish: () => this.#text.keepJournalFrom(mark) };
  }

  /** Appends one change (already made to the data) to the journal; resolves, once it is durable, with where its text lies there. */
  append(change: C): Promise<JournalSpot> {
    return this.#text.append(this.#format.encodeChange(change));
  }

  /**
   * The journal's state. `outgrown`: it holds `journalMinBytes` and more than the file, or
   * the file and twice the journal outgrew START_BYTES (past it, twice the file less
   * START_BYTES), so the data should be written whole: that write then costs at most about
   * what the appends since the last one cost (a few times that beside a file of over 40 MiB,
   * at most about 17 times between 104 and 136 MiB), and a start reads at most 120 MiB so
   * counted, or the file with 8 MiB of journal, or under twice a file of over 136 MiB.
   * `dirty`: an append failed and may have left its change in it, so the next write must be
   * whole. `pending`: it holds changes the file does not. `bytes` and `bound`: its size and
   * the size past which it is outgrown.
   */
  get journal(): { outgrown: boolean; dirty: boolean; pending: boolean; bytes: number; bound: number } {
    const { file, journal, dirty } = this.#text.sizes;
    // Under START_BYTES, what keeps the file and the journal within it; past it, half the excess.
    const startRoom = Math.abs(START_BYTES - file) / JOURNAL_BYTE_WEIGHT;
    const bound = Math.max(this.#journalMinBytes, Math.min(file, startRoom));
    return { outgrown: journal > bound, dirty, pending: dirty || journal > 0, bytes: journal, bound };
  }
}
