/** @module Writes a data file's bytes and its journal's lines, reusing the bytes of animals and keys written before. */

import {
  byteLengthOf,
  copyOwnBytes,
  type FilePart,
  freeableBytes,
  freeBuffer,
  type JournalSpot,
  Scratch,
} from '../../durableFile/index.js';
import { IdempotencyKeys } from '../../IdempotencyKeys.js';
import type { PetList } from '../../PetColumns.js';
import { encodePetChange, type KeysInChange, type PetChange } from '../format/PetChange.js';
import type { PetFileContent } from '../format/PetFileContent.js';
import { type PetFileData, petJson } from '../format/PetFileData.js';
import { findPetLines, type PetLines } from './findPetLines.js';
import { JournalKeys, type ReadJournalBytes } from './JournalKeys.js';
import { KeyLines } from './KeyLines.js';
import type { ReadOwnBytes } from './listLines.js';

/** How many animals share one cached chunk: small enough to redo cheaply, large enough to be few. */
const CHUNK_SIZE = 4096;

/** The bytes of a run of animals after the last full chunk, up to `end`. */
interface TailPiece {
  end: number;
  bytes: Buffer;
}

/** Where a whole write put the lines of a running storage's keys, to read them back for the next. */
interface WrittenKeys {
  queue: IdempotencyKeys;
  /** The sequence numbers of the first key written and of the one after the last. */
  start: number;
  end: number;
  /** Where their lines start in the file (the first line's line break), and their length, in bytes. */
  offset: number;
  length: number;
}

/** Where a whole write put the bytes of the full chunks of animals, to copy them from there into the next. */
interface WrittenPets {
  /** How many full chunks: animals 0 to `chunks * CHUNK_SIZE`. */
  chunks: number;
  /** Where their bytes start in the file, and their length. */
  offset: number;
  length: number;
}

/** How the keys' list opens in a file this serialiser writes; its first line follows, after a line break. */
const KEYS_LIST = '"idempotencyKeys":[';

/** The list's opening up to its first line's line break: where a file read whole has its keys' lines (see `readPetFileContent`). */
export const KEYS_OPENING = `${KEYS_LIST}\n`;

/** How many tail pieces are kept apart before they are joined into one. */
const MAX_TAIL_PIECES = 64;

/**
 * Turns file content into the bytes of a whole write (the document; the journal's lines are
 * `encodePetChange`'s). Animals never change and the list only grows at its end, so the bytes of each full chunk
 * of 4096 animals are kept and reused, and so are the bytes of the animals after the last
 * full chunk: a write serialises only the animals added since the one before (at most one
 * chunk, when the tail becomes a full chunk), not the thousands before them.
 *
 * The cache trusts its owner (PetFile, the only writer of the list) to say when positions
 * it has cached change: `forgetFrom` when the list is cut back or replaced.
 */
export class PetFileSerializer {
  /** The bytes of full chunks 0, 1, 2, … of the list as it is; none for those the file holds (`#writtenPets`). */
  readonly #chunks: (Buffer | undefined)[] = [];
  /** Where the last `serialize` of a running storage's content put its full chunks, until its write is known to have succeeded. */
  #serializedPets: WrittenPets | undefined;
  /** Where the file holds them, once it did (`written`): the next whole write copies them from there. */
  #writtenPets: WrittenPets | undefined;
  /** Where the file the start read holds its animals (see `read`), until found an animal a line, or the file or the list changes. */
  #petLines: PetLines | undefined;
  /** Where the cached tail starts (a chunk boundary), or -1 when nothing is cached after the chunks. */
  #tailStart = -1;
  /** The cached bytes of animals from `#tailStart` on, in the order written. */
  #tail: TailPiece[] = [];

  /** The bytes of the keys, from `prepare` (with keys) until the next whole write. */
  readonly #keyLines = new KeyLines();
  #encodedPetBytes = 0;
  /** Where the last `serialize` of the running storage's keys put their lines, until its write is known to have succeeded. */
  #serializedKeys: WrittenKeys | undefined;
  /** Where the file holds them, once it did (`written`). */
  #writtenKeys: WrittenKeys | undefined;
  /** Where the journal holds the text of the keys that came since. */
  readonly #journalKeys = new JournalKeys();
  /** How many whole writes of a running storage's content were serialised: keys' lines found before one name what it replaced. */
  #wholeWrites = 0;
  /** The last change `encodeChange` made with keys, until its append is known to have succeeded (`appended`). */
  #encodedChange: { text: string; keysIn: KeysInChange } | undefined;

  /**
   * How many bytes of animals and keys this serialiser has encoded so far: what writes cost
   * beyond handing cached bytes to the disk. A write of one new animal adds one line's worth,
   * however many animals and keys the file holds.
   */
  get encodedBytes(): number {
    return this.#encodedPetBytes + this.#keyLines.encodedBytes;
  }

  /**
   * The file's bytes, in parts for one whole write. Given a running storage's content (keys
   * as a queue), the bytes the last whole write put in the file (the full chunks of animals
   * and the keys still live) and the keys' text the journal holds are not in memory: the
   * parts copy them as the write runs (see FilePart), a megabyte at a time, and the rest is
   * encoded once and reused. Given plain data (keys as an array), every part is bytes.
   */
  serialize(data: PetFileData): Buffer[];
  serialize(content: PetFileContent): FilePart[];
  serialize({ format, nextId, pets, idempotencyKeys, sync }: PetFileData | PetFileContent): FilePart[] {
    const running = idempotencyKeys instanceof IdempotencyKeys;
    if (running) {
      this.#wholeWrites++;
      // This write replaces the file the start read: its animals' lines are no longer there to find.
      this.#petLines = undefined;
    }
    const parts: FilePart[] = [Buffer.from(`{"format":${format},"nextId":${nextId},"pets":[`)];
    const fullChunks = Math.floor(pets.length / CHUNK_SIZE);
    // Until `written` says the write succeeded, the file may be another one than the chunks' offsets name.
    const inFile = running && this.#writtenPets && this.#writtenPets.chunks <= fullChunks ? this.#writtenPets.chunks : 0;
    if (inFile > 0) parts.push(copyOwnBytes(this.#writtenPets!.offset, this.#writtenPets!.length));
    this.#writtenPets = undefined;
    for (let index = inFile; index < fullChunks; index++) parts.push(this.#chunk(pets, index));
    const petsOffset = parts[0]!.byteLength;
    const petsLength = byteLengthOf(parts) - petsOffset;
    this.#serializedPets = running && fullChunks > 0 ? { chunks: fullChunks, offset: petsOffset, length: petsLength } : undefined;
    for (const { bytes } of this.#tailOf(pets, fullChunks * CHUNK_SIZE)) parts.push(bytes);
    parts.push(Buffer.from(`${pets.length === 0 ? '' : '\n'}],${KEYS_LIST}`));
    const keys = running ? idempotencyKeys : new IdempotencyKeys(idempotencyKeys);
    const keyLines = running ? this.#keyLines : new KeyLines();
    // The sync part is small (a few leases and counters) and changes often: written whole, on its own line.
    const syncPart = sync === undefined ? '' : `,\n"sync":${JSON.stringify(sync)}\n`;
    const offset = byteLengthOf(parts);
    const lines = keyLines.lines(keys);
    const length = byteLengthOf(lines);
    this.#writtenKeys = undefined;
    this.#serializedKeys = running && length > 0 ? { queue: keys, start: keys.first, end: keys.end, offset, length } : undefined;
    parts.push(...lines, Buffer.from(`${keys.size === 0 ? '' : '\n'}]${syncPart}}\n`));
    // The keys' bytes are not kept past the write: about 260 bytes a key, more than the key
    // itself costs in memory, for a whole write that comes rarely now (the journal carries
    // each create). `prepare` finds them in the file before the next (see `written`), and
    // encodes only the keys that came since and are not in the journal.
    this.#keyLines.forget();
    return parts;
  }

  /**
   * Says the last `serialize` was written whole and is the file now: the next whole write
   * may copy its animals' and keys' bytes from it. Until this is said, they are encoded
   * again (a failed write left another file, whose bytes lie elsewhere).
   */
  written(): void {
    this.#writtenKeys = this.#serializedKeys;
    if (this.#writtenKeys) this.#journalKeys.forgetBefore(this.#writtenKeys.end);
    this.#writtenPets = this.#serializedPets;
    this.#dropChunksInFile();
  }

  /**
   * Frees the cached chunks the file holds now (`#writtenPets`): their bytes are read back
   * from it, not kept (about 110 MB at a million animals), and their memory goes back at
   * once, not at the next full collection.
   */
  #dropChunksInFile(): void {
    for (let index = 0; index < (this.#writtenPets?.chunks ?? 0); index++) {
      const chunk = this.#chunks[index];
      if (chunk) freeBuffer(chunk);
      this.#chunks[index] = undefined;
    }
  }

  /** A change as the journal's line holds it (`encodePetChange`), noting where its keys lie in the text. */
  encodeChange(change: PetChange): string {
    if (change.keys.length === 0) {
      this.#encodedChange = undefined;
      return encodePetChange(change);
    }
    const keysIn: KeysInChange = { start: 0, lengths: [] };
    const text = encodePetChange(change, keysIn);
    this.#encodedChange = { text, keysIn };
    return text;
  }

  /**
   * Says the last change `encodeChange` made was appended to the journal at `spot`, its keys
   * being keys `start`, `start + 1`, … of `keys`: `prepare` may read their text back from
   * the journal for the next whole write.
   */
  appended(spot: JournalSpot, keys: IdempotencyKeys, start: number): void {
    const change = this.#encodedChange;
    this.#encodedChange = undefined;
    if (change) this.#journalKeys.noted(keys, start, change.text, change.keysIn, spot);
  }

  /**
   * Notes where the keys' lines lie in the file as just read (`keyLines`, in bytes: see
   * `readPetFileContent`), whose keys `content` holds up to sequence number `keyLines.end`
   * (the journal's keys follow them): the first whole write after a start then copies them
   * too. `KeyLines.reuse` checks, a line at a time, the lines of the keys that expired
   * before that write; the write copies the rest as the file holds them, which are the keys
   * the file was parsed into (a layout edited by hand inside the list stays valid JSON, and
   * is written one key a line once a check meets it). Likewise `petLines`, where the file's
   * animals lie: once `prepare` finds them an animal a line, that write copies them too.
   */
  read(content: PetFileContent, keyLines: { offset: number; length: number; end: number } | undefined, petLines?: PetLines): void {
    this.#petLines = petLines;
    this.#serializedKeys = undefined;
    const keys = content.idempotencyKeys;
    this.#writtenKeys = keyLines && keyLines.end > keys.first ? { queue: keys, start: keys.first, ...keyLines } : undefined;
  }

  /** Forgets the bytes of keys from sequence number `sequence` on, which are about to change. */
  forgetKeysFrom(sequence: number): void {
    this.#keyLines.forgetFrom(sequence);
    this.#journalKeys.forgetFrom(sequence);
  }

  /** Forgets the bytes of every animal and key: the content was replaced. */
  forgetAll(): void {
    this.forgetFrom(0);
    this.#keyLines.forget();
    this.#journalKeys.forget();
    this.#serializedKeys = undefined;
    this.#writtenKeys = undefined;
  }

  /** Forgets the bytes of animals from position `length` on, which are about to change. */
  forgetFrom(length: number): void {
    if (this.#petLines && length < this.#petLines.count) this.#petLines = undefined;
    const chunks = Math.floor(length / CHUNK_SIZE);
    this.#chunks.length = Math.min(this.#chunks.length, chunks);
    if ((this.#writtenPets?.chunks ?? 0) > chunks) this.#writtenPets = undefined;
    if ((this.#serializedPets?.chunks ?? 0) > chunks) this.#serializedPets = undefined;
    if (length <= this.#tailStart) {
      this.#tailStart = -1;
      this.#tail = [];
    }
    // A piece reaching past `length` is dropped whole; the next write encodes its animals again.
    while ((this.#tail.at(-1)?.end ?? 0) > length) this.#tail.pop();
  }

  /**
   * Serialises the full chunks of `pets` ahead of the first write, one chunk per turn of the
   * event loop so requests are served in between; at a million animals this moves about a
   * second from the first create to the quiet time after opening. With `readOwnBytes`, the
   * animals of the file the start read are found there first, when it lies an animal a
   * line (see `#findPetLinesInFile`), and only those that came since are encoded. With
   * `keys`, the keys' lines too, a thousand a turn: for a whole write about to come, which
   * then encodes only the keys that arrived meanwhile (their bytes are dropped after it).
   * With `readOwnBytes` too, the lines of the keys the last whole write put in the file are
   * found there, to be copied by the write, not encoded again: at 300,000 keys encoding took about 0.8 s of the
   * server's one thread at each whole write, where copying the same 80 MB takes a few
   * milliseconds of it. With `readJournalBytes`, the keys that came since are copied from
   * their journal lines (see JournalKeys), and only those no line this process appended
   * holds are encoded. Stops when `stopped()` says so, and stops finding keys' lines once
   * a whole write ran meanwhile: the file or the journal they name may be gone.
   */
  async prepare(
    { pets, idempotencyKeys }: PetFileContent,
    stopped: () => boolean,
    {
      keys = false,
      readOwnBytes,
      readJournalBytes,
    }: { keys?: boolean; readOwnBytes?: ReadOwnBytes; readJournalBytes?: ReadJournalBytes } = {},
  ): Promise<void> {
    if (readOwnBytes) await this.#findPetLinesInFile(pets, readOwnBytes, stopped);
    for (let index = 0; (index + 1) * CHUNK_SIZE <= pets.length && !stopped(); index++) {
      if (index < (this.#writtenPets?.chunks ?? 0) || this.#chunks[index]) continue;
      this.#chunk(pets, index);
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!keys) return;
    // One buffer to read the file's and the journal's bytes through, freed once the preparation ends.
    const scratch = new Scratch();
    try {
      await this.#findKeyLines(idempotencyKeys, stopped, readOwnBytes, readJournalBytes, scratch);
    } finally {
      scratch.free();
    }
  }

  /**
   * Finds the lines of `keys` that the file (`readOwnBytes`) and the journal's lines
   * (`readJournalBytes`) hold, for the whole write to copy, and encodes the rest.
   */
  async #findKeyLines(
    idempotencyKeys: IdempotencyKeys,
    stopped: () => boolean,
    readOwnBytes: ReadOwnBytes | undefined,
    readJournalBytes: ReadJournalBytes | undefined,
    scratch: Scratch,
  ): Promise<void> {
    const wholeWrites = this.#wholeWrites;
    const found = () => stopped() || this.#wholeWrites !== wholeWrites;
    const written = this.#writtenKeys;
    if (readOwnBytes && written?.queue === idempotencyKeys && written.end > idempotencyKeys.first) {
      // Checked against the file a megabyte at a time; its lines are copied from it by the write.
      await this.#keyLines.reuse(idempotencyKeys, written, readOwnBytes, found, scratch);
    }
    // The keys that came since: read back from the journal's lines where they are noted,
    // encoded where not. Only those here now: under a flood of creates, chasing the keys
    // that keep coming a read at a time would put the whole write off for as long as it lasts.
    const upTo = idempotencyKeys.end;
    while (readJournalBytes && !found()) {
      const from = this.#keyLines.encodedEnd(idempotencyKeys);
      const next = from < upTo ? this.#journalKeys.nextAfter(idempotencyKeys, from) : undefined;
      if (next === undefined || next >= upTo) break;
      if (next > from) await this.#keyLines.prepare(idempotencyKeys, stopped, next);
      else {
        const lines = await this.#journalKeys.read(idempotencyKeys, from, readJournalBytes, scratch);
        if (!lines || found() || !this.#keyLines.append(idempotencyKeys, lines)) break;
      }
    }
    await this.#keyLines.prepare(idempotencyKeys, stopped);
  }

  /**
   * Notes the full chunks of the animals the start read as the file's (`#writtenPets`) once
   * `findPetLines` finds them there an animal a line, as this serialiser writes them: the
   * next whole write copies them, as each whole write copies the one before's. Encoded
   * instead, they took about a second of the server's thread after a start at a million
   * animals, and about 75 MB more of its memory until that write.
   */
  async #findPetLinesInFile(pets: PetList, read: ReadOwnBytes, stopped: () => boolean): Promise<void> {
    const lines = this.#petLines;
    const chunks = lines ? Math.floor(Math.min(lines.count, pets.length) / CHUNK_SIZE) : 0;
    if (!lines || chunks === 0 || this.#writtenPets) return;
    // Not once a whole write replaced the file, or the list was cut back, meanwhile.
    const moved = () => stopped() || this.#petLines !== lines || this.#writtenPets !== undefined;
    const scratch = new Scratch();
    let length: number | undefined;
    try {
      length = await findPetLines(read, lines, chunks * CHUNK_SIZE, moved, scratch);
    } finally {
      scratch.free();
    }
    if (length === undefined || moved()) return;
    this.#writtenPets = { chunks, offset: lines.offset, length };
    this.#dropChunksInFile();
  }

  /** The bytes of full chunk `index`, from the cache when made before. */
  #chunk(pets: PetList, index: number): Buffer {
    let bytes = this.#chunks[index];
    if (bytes === undefined) {
      bytes = this.#encode(pets, index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE, freeableBytes);
      // Chunks are made in order (by prepare or serialize), after those the file holds, so this appends or fills a gap.
      this.#chunks[index] = bytes;
    }
    return bytes;
  }

  /** The pieces of the animals from `start` (a chunk boundary) to the end of `pets`, the new ones encoded now. */
  #tailOf(pets: PetList, start: number): readonly TailPiece[] {
    if (this.#tailStart !== start) {
      this.#tailStart = start;
      this.#tail = [];
    }
    const cached = this.#tail.at(-1)?.end ?? start;
    if (cached < pets.length) {
      this.#tail.push({ end: pets.length, bytes: this.#encode(pets, cached, pets.length, (text) => Buffer.from(text)) });
      // Keep the list short: join the pieces now and then (the last stays apart, to be cut back alone).
      if (this.#tail.length > MAX_TAIL_PIECES) {
        const joined = this.#tail.slice(0, -1);
        this.#tail = [{ end: joined.at(-1)!.end, bytes: Buffer.concat(joined.map(({ bytes }) => bytes)) }, this.#tail.at(-1)!];
      }
    }
    return this.#tail;
  }

  /**
   * The lines of animals `start` to `end`, each after the separator it needs, as `toBytes`
   * makes them: a chunk's in a freeable buffer, the file holding them once written.
   */
  #encode(pets: PetList, start: number, end: number, toBytes: (text: string) => Buffer): Buffer {
    let text = '';
    for (let position = start; position < end; position++) {
      text += `${position === 0 ? '\n' : ',\n'}${petJson(pets.at(position)!)}`;
    }
    const bytes = toBytes(text);
    this.#encodedPetBytes += bytes.byteLength;
    return bytes;
  }
}
