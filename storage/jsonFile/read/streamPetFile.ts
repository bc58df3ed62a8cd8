/**
 * @module Reads a large data file a range at a time, however it is spaced: its animals in
 * this thread, its keys in a worker thread, never its whole text in memory.
 */
import type { FileReading, JournalChanges } from '../../durableFile/index.js';
import { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { PetColumns } from '../../PetColumns.js';
import { checkPetFile, isStoredPet } from '../format/checkPetFile.js';
import { addPetChanges, type ReadChanges, readPetChanges, replayPetChanges } from '../format/PetChange.js';
import { type PetFileContent, toPetFileContent } from '../format/PetFileContent.js';
import { nextIdProblem } from '../format/PetFileData.js';
import type { PetLines } from '../write/findPetLines.js';
import { type KeysPart, readKeysPart } from './keysPart.js';
import { parseListPieces } from './listPieces.js';
import { outlinePetFile } from './outlinePetFile.js';
import { readKeysInWorker } from './readKeysInWorker.js';

/** The fewest bytes an animal takes in a list: `{"id":1,"name":"a","categoryId":1,"status":"sold"}` and a comma. */
const LEAST_PET_BYTES = 51;

/** How many bytes a read takes. */
const CHUNK_BYTES = 1024 * 1024;

/** Below this many bytes of keys (about 4,000 keys), a worker's start costs more than it saves (unless it reads changes: see `workerShareOf`). */
const WORKER_FROM = 1_000_000;

/**
 * What reading a byte costs, against an animal's byte in this thread, and what the worker's
 * own start costs, in animals' bytes. Fitted to starts of the built bin on two cores (0.1 to
 * 1 million animals, 100,000 keys, up to 67 MB of journal): the animals took about 22 ms a
 * MB here, the keys about 39 ms a MB in the worker and the journal's changes about 22 there,
 * 34 here (where their keys then join the queue and their objects a larger heap), and the
 * worker about 0.3 s to load.
 */
const KEY_BYTE_COST = 1.8;
const CHANGE_BYTE_COST_THERE = 1;
const CHANGE_BYTE_COST_HERE = 1.5;
const WORKER_START_COST = 14_000_000;

/** Below this share of the journal this thread would read, the worker reads it all: the bytes then move to it, not copied. */
const LEAST_SHARE_HERE = 0.1;

/**
 * How many of the journal's first changes the keys' worker reads, the rest read in this
 * thread once the animals are: so that the two threads finish about together. Beside a
 * million animals the worker, done with the keys long before the animals are parsed here,
 * reads them all; beside a few hundred thousand, this thread reads about half or more,
 * where it waited for the worker a second or more before.
 */
export const workerShareOf = (journal: JournalChanges, petsBytes: number, keysBytes: number): number => {
  const changesBytes = journal.validBytes;
  const worker = keysBytes * KEY_BYTE_COST + WORKER_START_COST;
  const balanced = (petsBytes + changesBytes * CHANGE_BYTE_COST_HERE - worker) / (CHANGE_BYTE_COST_THERE + CHANGE_BYTE_COST_HERE);
  if (balanced >= changesBytes * (1 - LEAST_SHARE_HERE)) return journal.length;
  return journal.countWithin(Math.max(balanced, 0));
};

/**
 * A data file's content, its journal's changes applied, and where the file's keys' lines lie
 * in it (bytes from the line break after the list's `[`; `end`, the sequence number after
 * the last of those keys: the journal's follow).
 */
export interface ReadContent {
  content: PetFileContent;
  keyLines: { offset: number; length: number; end: number } | undefined;
  /**
   * Where the file's animals' list lies (bytes from after its `[` to its `]`) and how many
   * animals it holds, the first of the content's: a whole write may copy their bytes, once
   * `PetFileSerializer` has checked they lie an animal a line. Said only of a file read a
   * range at a time, and only when the journal put no animal among the file's.
   */
  petLines?: PetLines | undefined;
}

/**
 * The animals' list between bytes `from` (after its `[`) and `end` (its `]`), read a chunk
 * at a time and parsed a piece at a time (see `parseListPieces`) into columns, each piece's
 * objects checked and then left to die young; `undefined` for any list laid out otherwise,
 * not valid, or holding an animal the file may not (which the whole read then names).
 */
const readPets = async (file: FileReading, from: number, end: number, chunk: Buffer): Promise<PetColumns | undefined> => {
  const pets = new PetColumns();
  pets.reserve(Math.ceil((end - from) / LEAST_PET_BYTES));
  const keep = (items: unknown[]) => {
    for (const item of items) {
      if (!isStoredPet(item)) return false;
      pets.push(item);
    }
    return true;
  };
  let position = from;
  while (position < end) {
    const length = Math.min(chunk.byteLength, end - position);
    const bytes = await file.bytes(position, length, chunk);
    if (bytes.byteLength < length) return undefined;
    const parsed = parseListPieces(bytes, position + length === end, pets.length > 0, keep);
    if (parsed === undefined) return undefined;
    position += parsed;
  }
  return pets;
};

/**
 * The highest id of `pets`, or `undefined` when their ids break the file's rule: ascending,
 * or (a file that syncs, in arrival order) distinct.
 */
const highestIdOf = (pets: PetColumns, inArrivalOrder: boolean): number | undefined => {
  const seen = inArrivalOrder ? new Set<number>() : undefined;
  let highest = 0;
  for (let position = 0; position < pets.length; position++) {
    const id = pets.idAt(position);
    if (seen) {
      if (seen.has(id)) return undefined;
      seen.add(id);
    } else if (id <= highest) return undefined;
    highest = Math.max(highest, id);
  }
  return highest;
};

/**
 * The content of a data file, its fields in any order and however spaced (as the server
 * writes it, as `JSON.stringify` does, compact or indented, or sorted: see
 * `outlinePetFile`), and where its keys' lines lie when laid out as the serialiser writes
 * them; `undefined` for any other layout and any file with a problem, which the caller then
 * reads whole, naming the problem. The keys' list is read into its own buffer and parsed in
 * a worker thread (in this one when short), while this thread parses the animals a piece at
 * a time through one buffer. At a million animals, reading the text whole made a string of
 * over 100 MB twice (the read's pieces, then one flat string), a quarter of the pages a
 * start touched; pages are slow to touch on some machines (13 µs each on one we measured),
 * so this cut a start by most of a second there.
 *
 * The journal's changes (`changes`, of the file named `name`) are shared between the two
 * threads (`shareOf` says how many of the first the worker reads; `workerShareOf` but in
 * tests): the worker reads them after the file's keys, this thread the rest after the
 * animals, and their keys join the queue after the worker's. At a million animals a journal
 * of 27 MB took 0.7 s of this thread to replay after the animals, where the worker, done
 * with the keys in about half their time, had the rest to spare; beside half
 * as many, this thread waited a second or more while the worker read a long journal alone.
 * Should either share not be read, the whole journal is replayed here (a change that is not
 * valid throws a DataFileError naming its line; `undefined` lets the caller replay them too).
 */
export const streamPetFile = async (
  file: FileReading,
  changes: JournalChanges,
  name: string,
  shareOf = workerShareOf,
): Promise<ReadContent | undefined> => {
  const chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  const outline = await outlinePetFile(file, chunk);
  // Only the current format is read a range at a time: an older one is read whole, then upgraded.
  if (outline?.fields.format !== 2) return undefined;
  const { fields, pets: petsList, keys: keysList } = outline;
  // Changes lent before (a read that failed after lending them) are read again from the journal.
  const journal = changes.length > 0 ? await changes.readable() : undefined;
  // The keys' list, brackets and all, is read on the threadpool while this thread parses the animals.
  const keysStart = keysList.start - 1;
  const keysLength = keysList.end + 1 - keysStart;
  const bytes = file
    .bytes(keysStart, keysLength, Buffer.allocUnsafeSlow(keysLength))
    .then((read) => (read.byteLength < keysLength ? undefined : read));
  // The journal's first changes are read in the worker, the rest here (all of them, when the keys are read here too).
  const share = journal ? shareOf(journal, petsList.end - petsList.start, keysLength) : 0;
  const inWorker = keysLength >= WORKER_FROM || share > 0;
  const theirs = inWorker ? share : 0;
  const keys: Promise<KeysPart | undefined> = inWorker
    ? readKeysInWorker(bytes, journal, theirs)
    : bytes.then((read) => read && readKeysPart(read));
  let pets: PetColumns | undefined;
  let ours: ReadChanges | undefined;
  try {
    pets = await readPets(file, petsList.start, petsList.end, chunk);
    ours = journal && theirs < journal.length ? readOurChanges(journal, theirs, name) : undefined;
  } finally {
    // Settled either way, so a failed read leaves no rejection unheard.
    await keys.catch(() => undefined);
  }
  const part = await keys;
  // The keys were checked as they were read, the animals but for their ids; the rest of the file here.
  const checked = part && pets && checkPetFile({ ...fields, pets: [], idempotencyKeys: [] });
  if (!checked || !('data' in checked)) return undefined;
  const highest = highestIdOf(pets!, checked.data.sync !== undefined);
  if (highest === undefined || nextIdProblem([{ id: highest }], checked.data.nextId)) return undefined;
  const { lines } = part!;
  const content = toPetFileContent({ ...checked.data, pets: pets! }, IdempotencyKeys.fromSnapshot(part!.snapshot));
  const count = content.pets.length;
  const lastInFile = count > 0 ? content.pets.idAt(count - 1) : undefined;
  if (journal) {
    // Each share read, in order; else the whole journal here, which names its first change that is not valid.
    const read = (theirs === 0 || part.changes) && (theirs === journal.length || ours);
    if (read) {
      if (part.changes) addPetChanges(content, part.changes);
      if (ours) addPetChanges(content, ours);
    } else replayPetChanges(content, await journal.readable(), name);
  }
  // A journal's animal with an id below the file's last is sorted in among the file's (an
  // edit's ids: see `addPetChanges`); the file's animals are then no longer the content's first.
  const inOrder = count > 0 && content.pets.idAt(count - 1) === lastInFile;
  const petLines = inOrder ? { offset: petsList.start, length: petsList.end - petsList.start, count } : undefined;
  return { content, keyLines: lines && { offset: keysStart + lines.start, length: lines.length, end: part.keysEnd }, petLines };
};

/** The journal's changes after the first `theirs` (the worker's), read; `undefined` when one is not valid. */
const readOurChanges = (journal: JournalChanges, theirs: number, name: string): ReadChanges | undefined => {
  try {
    return readPetChanges(journal.after(theirs), name, undefined, theirs);
  } catch {
    return undefined;
  }
};
