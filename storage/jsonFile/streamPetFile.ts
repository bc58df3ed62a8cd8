/**
 * @module Reads a large data file laid out as the serialiser writes it a range at a time:
 * its animals in this thread, its keys in a worker thread, never its whole text in memory.
 */
import type { FileReading } from '../durableFile/index.js';
import { IdempotencyKeys } from '../IdempotencyKeys.js';
import { checkPetFile } from './checkPetFile.js';
import { type KeysPart, readKeysPart } from './keysPart.js';
import { parseListPieces } from './listPieces.js';
import { type PetFileContent, toPetFileContent } from './PetFileContent.js';
import type { PetFileData } from './PetFileData.js';
import { PETS_TO_KEYS } from './PetFileSerializer.js';
import { readKeysInWorker } from './readKeysInWorker.js';

/** How many bytes a read takes. */
const CHUNK_BYTES = 1024 * 1024;

/** Below this many bytes of keys (about 4,000 keys), a worker's start costs more than it saves. */
const WORKER_FROM = 1_000_000;

/** The opening the serialiser writes: the format, the next id (as JSON writes a number), then the animals' list. */
const HEADER = /^\{"format":2,"nextId":(0|[1-9]\d*),"pets":\[/;

/** Where the animals' list ends and the keys' list begins, as the serialiser writes them. */
const PETS_TO_KEYS_BYTES = Buffer.from(PETS_TO_KEYS);

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

/**
 * The animals' list between bytes `from` (after its `[`) and `end` (its `]`), read a chunk
 * at a time and parsed a piece of lines at a time (see `parseListPieces`); `undefined` for
 * any list laid out otherwise or not valid.
 */
const readPets = async (file: FileReading, from: number, end: number, chunk: Buffer): Promise<unknown[] | undefined> => {
  // Each piece's items kept apart and joined once at the end: pushing a million animals one by
  // one into one array grew it by copies, and made the collector track every old-to-new pointer.
  const pieces: unknown[][] = [];
  let count = 0;
  const keep = (items: unknown[]) => {
    pieces.push(items);
    count += items.length;
    return true;
  };
  let position = from;
  while (position < end) {
    const length = Math.min(chunk.byteLength, end - position);
    const bytes = await file.bytes(position, length, chunk);
    if (bytes.byteLength < length) return undefined;
    const parsed = parseListPieces(bytes, position + length === end, count > 0, keep);
    if (parsed === undefined) return undefined;
    position += parsed;
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
  const petsEnd = await findLast(file, PETS_TO_KEYS_BYTES, chunk);
  if (petsEnd < header[0].length) return undefined;
  // The keys' list starts at its `[`; its part is read on the threadpool while this thread parses the animals.
  const keysStart = petsEnd + PETS_TO_KEYS_BYTES.byteLength - 1;
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
