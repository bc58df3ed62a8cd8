/** @module The lowdb adapter of the JSON data file: validated reads, durable writes. */
import type { Adapter } from 'lowdb';
import { DataFileError } from './DataFileError.js';
import { DurableTextFile } from './DurableTextFile.js';
import type { FileSystem } from './FileSystem.js';
import type { PetFileData } from './PetFileData.js';
import { PetFileSerializer } from './PetFileSerializer.js';
import { parsePetFile } from './parsePetFile.js';

/**
 * lowdb's `Adapter` for the data file, in place of lowdb's own `JSONFile`: that one writes
 * through steno, which never fsyncs and gives every writer the same temp name. `read`
 * validates the whole file and throws a DataFileError naming the first problem; `write`
 * resolves only once the content is durable (see DurableTextFile).
 */
export class DurableJsonFile implements Adapter<PetFileData> {
  /** The text file underneath, for the folder and temp-file housekeeping done on open. */
  readonly text: DurableTextFile;
  readonly #serializer = new PetFileSerializer();
  readonly #name: string;

  /**
   * @param file The file to read and replace: its real path, so that replacing it never
   *   turns a symlink into a file of its own.
   * @param options.name How messages name the file (the path the user gave); `file` by default.
   * @param options.fs The file functions; Node's by default.
   */
  constructor(file: string, { name = file, fs }: { name?: string; fs?: FileSystem } = {}) {
    this.text = new DurableTextFile(file, fs);
    this.#name = name;
  }

  /** The validated content, or `null` when there is no file yet. */
  async read(): Promise<PetFileData | null> {
    const file = this.#name;
    let text: string | undefined;
    try {
      text = await this.text.read();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new DataFileError(file, `The data file ${file} cannot be read: ${reason}.`, { cause: error });
    }
    return text === undefined ? null : parsePetFile(text, file);
  }

  /**
   * Prepares, in the background, the bytes of the animals already in the file, so the first
   * write at a large size costs what later ones cost. Call the returned function to stop.
   */
  prepareWrites(data: PetFileData): () => void {
    let stopped = false;
    void this.#serializer.prepare(data.pets, () => stopped);
    return () => {
      stopped = true;
    };
  }

  /** Replaces the file with this content; resolves once it is durable. */
  async write(data: PetFileData): Promise<void> {
    await this.text.write(this.#serializer.serialize(data));
  }
}
