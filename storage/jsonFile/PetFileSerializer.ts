/** @module Writes a data file's bytes, reusing the unchanged bytes of earlier writes. */
import type { Pet } from '../../core/schemas/Pet.js';
import type { PetFileData } from './PetFileData.js';

/** How many animals share one cached chunk: small enough to redo cheaply, large enough to be few. */
const CHUNK_SIZE = 4096;

interface Chunk {
  first: Pet;
  last: Pet;
  bytes: Buffer;
}

/** One animal per line, fields in a fixed order, so files diff and repair well by hand. */
const petLine = ({ id, name, categoryId, status }: Pet): string =>
  `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":${JSON.stringify(status)}}`;

/**
 * Turns file content into the bytes to write. Every write rewrites the whole file, but
 * animals never change and the list only grows at its end, so the bytes of each full chunk
 * of 4096 animals are kept and reused: a create at a million animals serialises one chunk,
 * not a million animals.
 *
 * A cached chunk is reused only while the same animal objects (by identity) start and end
 * it. The storage only appends to the list or cuts off an unacknowledged tail, and a cut
 * animal never comes back (a retry is a new object), so equal ends mean an equal chunk.
 */
export class PetFileSerializer {
  readonly #chunks: Chunk[] = [];

  /** The file's bytes, as a list of buffers for one `writev`. */
  serialize({ format, nextId, pets }: PetFileData): Buffer[] {
    const buffers: Buffer[] = [Buffer.from(`{"format":${format},"nextId":${nextId},"pets":[`)];
    const fullChunks = Math.floor(pets.length / CHUNK_SIZE);
    for (let index = 0; index < fullChunks; index++) buffers.push(this.#chunk(pets, index));
    this.#chunks.length = Math.min(this.#chunks.length, fullChunks);
    if (pets.length > fullChunks * CHUNK_SIZE) buffers.push(this.#encode(pets, fullChunks * CHUNK_SIZE, pets.length));
    buffers.push(Buffer.from(pets.length === 0 ? ']}\n' : '\n]}\n'));
    return buffers;
  }

  /**
   * Serialises the full chunks of `pets` ahead of the first write, one chunk per turn of the
   * event loop so requests are served in between; at a million animals this moves about a
   * second from the first create to the quiet time after opening. Stops when `stopped()`
   * says so, or when the list was cut below a chunk it reaches.
   */
  async prepare(pets: readonly Pet[], stopped: () => boolean): Promise<void> {
    for (let index = 0; (index + 1) * CHUNK_SIZE <= pets.length && !stopped(); index++) {
      this.#chunk(pets, index);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The bytes of full chunk `index`, from the cache while the same animals start and end it. */
  #chunk(pets: readonly Pet[], index: number): Buffer {
    const start = index * CHUNK_SIZE;
    const first = pets[start]!;
    const last = pets[start + CHUNK_SIZE - 1]!;
    let chunk = this.#chunks[index];
    if (chunk?.first !== first || chunk.last !== last) {
      chunk = { first, last, bytes: this.#encode(pets, start, start + CHUNK_SIZE) };
      this.#chunks[index] = chunk;
    }
    return chunk.bytes;
  }

  /** The lines of animals `start` to `end`, each after the separator it needs. */
  #encode(pets: readonly Pet[], start: number, end: number): Buffer {
    let text = '';
    for (let position = start; position < end; position++) {
      text += `${position === 0 ? '\n' : ',\n'}${petLine(pets[position]!)}`;
    }
    return Buffer.from(text);
  }
}
