/**
 * @module Reads a large data file laid out as the serialiser writes it a range at a time:
 * its animals in this thread, its keys in a worker thread, never its whole text in memory.
 */
import type { FileReading } from '../durableFile/index.js';
import { IdempotencyKeys } from '../IdempotencyKeys.js';
import { checkPetFile } from './checkPetFile.js';
import { type KeysPart, readKeysPart } from './keysPart.js';
import { type PetFileContent, toPetFileContent } from './PetFileContent.js';
import type { PetFileData } from './PetFileData.js';
import { readKeysInWorker } from './readKeysInWorker.js';

/** How many bytes a read takes. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * How many bytes of animals one parse takes at most: below V8's large-object size, so the
 * text lives in the young generation, whose pages are reused, not on fresh pages each time.
 */
const PIECE_BYTES = 64 * 1024;

/** Below this many bytes of keys (about 4,000 keys), a worker's start costs more than it saves. */
const WORKER_FROM = 1_000_000;

/** The opening the serialiser writes: the format, the next id (as JSON writes a number), then the animals' list. */
const HEADER = /^\{"format":2,"nextId":(0|[1-9]\d*),"pets":\[/;

/** Where the animals' list ends and the keys' list begins, as the serialiser writes them. */
const PETS_TO_KEYS = Buffer.from('],"idempotencyKeys":[');

/** What separates two animals' lines: outside every string, since JSON strings hold no raw line break. */
const LINE_BREAK_AFTER_COMMA = Buffer.from(',\n');

/** A data file's content, and where its keys' lines lie in it (bytes from the line break after the list's `[`). */
export interface ReadContent {
  content: PetFileContent;
  keyLines: { offset: number; length: number } | undefined;
}

/** Where `needle` last occurs in the file, sought backwards a chunk at a time; -1 when nowhere. */
const findLast = async (file: FileReading, needle: Buffer, chunk: Buffer): Promise<number> => {
  let end = file.size;
  for (;;) {
    const start = Math.max(0, end - chunk.byteLength);
    const bytes = await file.bytes(start, end - start, chunk);
    const at = bytes.lastIndexOf(needle);
    if (at !== -1) return start + at;
    if (start === 0) return -1;
    // Overlapping, so a needle across two chunks is found.
    end = start + needle.byteLength - 1;
  }
};

/** The values of a list's items (`text` between its brackets), or `undefined` when they are not a list's items. */
const itemsOf = (text: string): unknown[] | undefined => {
  try {
    const items: unknown = JSON.parse(`[${text}]`);
    return Array.isArray(items) ? items : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The animals' list between bytes `from` (after its `[`) and `end` (its `]`), parsed a
 * piece of lines at a time. A piece ends before a comma followed by a line break, so it
 * parses as the items of a list exactly when that comma is the list's own (a comma inside
 * an item leaves its brackets open in the piece); every piece but the last holds an item,
 * so the pieces together are the list. `undefined` for any list laid out otherwise (a
 * line longer than a piece: not the serialiser's) or not valid.
 */
const readPets = async (file: FileReading, from: number, end: number, chunk: Buffer): Promise<unknown[] | undefined> => {
  // Each piece's items kept apart and joined once at the end: pushing a million animals one by
  // one into one array grew it by copies, and made the collector track every old-to-new pointer.
  const pieces: unknown[][] = [];
  let count = 0;
  let position = from;
  while (position < end) {
    const length = Math.min(chunk.byteLength, end - position);
    const bytes = await file.bytes(position, length, chunk);
    if (bytes.byteLength < length) return undefined;
    const last = position + length === end;
    let start = 0;
    while (start < bytes.byteLength) {
      const limit = Math.min(start + PIECE_BYTES, bytes.byteLength);
      const comma = last && limit === bytes.byteLength ? limit : bytes.lastIndexOf(LINE_BREAK_AFTER_COMMA, limit - 2);
      if (comma < start) {
        if (limit < bytes.byteLength) return undefined;
        break;
      }
      const items = itemsOf(bytes.toString('utf8', start, comma));
      if (items === undefined || (items.length === 0 && (comma < bytes.byteLength || count > 0))) return undefined;
      pieces.push(items);
      count += items.length;
      start = comma + 1;
    }
    position += Math.min(start, bytes.byteLength);
  }
  return ([] as unknown[]).concat(...pieces);
};

/**
 * The content of a data file laid out as the serialiser writes it, and where its keys'
 * lines lie; `undefined` for any other layout and any file with a problem, which the caller
 * then reads whole, naming the problem. The keys' part is read into its own buffer and
 * parsed in a worker thread (in this one when short), while this thread parses the
 * animals a piece at a time through one buffer. At a million animals, reading the text
 * whole made a string of over 100 MB twice (the read's pieces, then one flat string), a
 * quarter of the pages a start touched; pages are slow to touch on some machines (13 µs
 * each on one we measured), so this cut a start by most of a second there.
 */
export const streamPetFile = async (file: FileReading): Promise<ReadContent | undefined> => {
  const chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  const header = HEADER.exec((await file.bytes(0, 64, chunk)).toString('latin1'));
  if (!header) return undefined;
  const petsEnd = await findLast(file, PETS_TO_KEYS, chunk);
  if (petsEnd < header[0].length) return undefined;
  // The keys' list starts at its `[`; its part is read on the threadpool while this thread parses the animals.
  const keysStart = petsEnd + PETS_TO_KEYS.byteLength - 1;
  const keysLength = file.size - keysStart;
  const bytes = file
    .bytes(keysStart, keysLength, Buffer.allocUnsafeSlow(keysLength))
    .then((read) => (read.byteLength < keysLength ? undefined : read));
  const keys: Promise<KeysPart | undefined> =
    keysLength >= WORKER_FROM ? readKeysInWorker(bytes) : bytes.then((read) => read && readKeysPart(read));
  let pets: unknown[] | undefined;
  try {
    pets = await readPets(file, header[0].length, petsEnd, chunk);
  } finally {
    // Settled either way, so a failed read leaves no rejection unheard.
    await keys.catch(() => undefined);
  }
  const part = await keys;
  const sync = part && pets && syncOf(part.rest);
  const checked = sync && checkPetFile({ format: 2, nextId: Number(header[1]), pets, idempotencyKeys: [], ...sync });
  if (!checked || !('data' in checked)) return undefined;
  const { lines } = part;
  return {
    content: toPetFileContent(checked.data, IdempotencyKeys.fromSnapshot(part.snapshot)),
    keyLines: lines && { offset: keysStart + lines.start, length: lines.length },
  };
};

/** What follows the keys' list: nothing but the file's end, or its sync part; `undefined` when anything else. */
const syncOf = (rest: string): Pick<PetFileData, 'sync'> | undefined => {
  if (rest === '}\n' || rest === '}') return {};
  if (!rest.startsWith(',')) return undefined;
  let tail: unknown;
  try {
    tail = JSON.parse(`{${rest.slice(1)}`);
  } catch {
    return undefined;
  }
  return typeof tail === 'object' && tail !== null && Object.keys(tail).length === 1 && 'sync' in tail
    ? { sync: tail.sync as PetFileData['sync'] }
    : undefined;
};
