/** @module A lowdb adapter for any data kept in one durable text file, given how to parse and serialise it. */
import type { Adapter } from 'lowdb';
import type { DurableTextFile } from './DurableTextFile.js';

/** How the data is written down: text to data and back. */
export interface DataFormat<T> {
  /** The data in the file's text; throws when the text is not valid data. */
  parse(text: string): T;
  /** The file's bytes for the data, as buffers for one `writev`. */
  serialize(data: T): Uint8Array[];
}

/**
 * lowdb's `Adapter` over a durable text file, as lowdb's own `DataFile` is over its text
 * file: `read` parses, `write` serialises and resolves only once the bytes are durable.
 * (lowdb's `JSONFile` writes through steno, which never fsyncs and gives every writer the
 * same temp name.)
 */
export class DurableDataFile<T> implements Adapter<T> {
  readonly #text: DurableTextFile;
  readonly #format: DataFormat<T>;

  constructor(text: DurableTextFile, format: DataFormat<T>) {
    this.#text = text;
    this.#format = format;
  }

  /** The data; throws when the file is not valid data (lowdb then keeps what it had). */
  async read(): Promise<T | null> {
    return this.#format.parse(await this.#text.read());
  }

  /** Replaces the file with this data; resolves once it is durable. */
  async write(data: T): Promise<void> {
    await this.#text.write(this.#format.serialize(data));
  }
}
