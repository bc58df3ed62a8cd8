/** @module Reads a data file into the content a running storage holds: a large one laid out as the server writes it a range at a time. */
import type { FileReading, JournalChanges } from '../../durableFile/index.js';
import type { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { replayPetChanges } from '../format/PetChange.js';
import { toPetFileContent } from '../format/PetFileContent.js';
import { KEYS_OPENING } from '../write/PetFileSerializer.js';
import { parsePetFile } from './parsePetFile.js';
import { type ReadContent, streamPetFile } from './streamPetFile.js';

/** From this size on, a file laid out as the server writes it is read a range at a time (`streamPetFile`). */
const STREAM_FROM = 1024 * 1024;

/**
 * Where the keys' lines lie in `text`, a file of `fileBytes` bytes parsed into `keys`: from
 * the line break after the list's `[` to the one before its `]`, in bytes, and the
 * sequence number after its last key. Only a list laid out as the serialiser writes it (a
 * key a line) is found.
 */
const keyLinesIn = (text: string, keys: IdempotencyKeys, fileBytes: number): ReadContent['keyLines'] => {
  // Inside a string every quote is escaped and no line breaks, so these texts are the list's
  // own opening and end (the opening is sought from the start: V8's lastIndexOf is slower
  // over the keys than indexOf over a million animals, about 25 ms).
  const opening = keys.size === 0 ? -1 : text.indexOf(KEYS_OPENING);
  const end = text.lastIndexOf('\n]');
  if (opening === -1 || end < opening + KEYS_OPENING.length) return undefined;
  const first = opening + KEYS_OPENING.length - 1;
  // Counted from the file's end, so only the keys' part of the text is measured in bytes.
  const fromFirst = Buffer.byteLength(text.slice(first));
  return { offset: fileBytes - fromFirst, length: fromFirst - Buffer.byteLength(text.slice(end)), end: keys.end };
};

/**
 * The content of the data file `file` (named `name` in messages) with its journal's
 * `changes` applied, and where the file's keys' lines lie, for the first whole write to
 * copy them. A file of a megabyte or more, laid out as the server writes it, is read a
 * range at a time, its keys and the journal's changes in a worker thread (see
 * `streamPetFile`). Any other file, and any file with a problem, is read whole by
 * `parsePetFile`, which throws a DataFileError naming its first problem.
 */
export const readPetFileContent = async (file: FileReading, name: string, changes: JournalChanges): Promise<ReadContent> => {
  const streamed = file.size >= STREAM_FROM ? await streamPetFile(file, changes, name) : undefined;
  if (streamed) return streamed;
  const text = await file.text();
  const content = toPetFileContent(parsePetFile(text, name));
  // Found before the journal's keys join the file's.
  const keyLines = keyLinesIn(text, content.idempotencyKeys, file.size);
  replayPetChanges(content, await changes.readable(), name);
  return { content, keyLines };
};
