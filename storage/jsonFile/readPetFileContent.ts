/** @module Reads a data file's text into the content a running storage holds; a large file's keys in a worker thread. */
import { checkPetFile } from './checkPetFile.js';
import { type PetFileContent, toPetFileContent } from './PetFileContent.js';
import type { PetFileData } from './PetFileData.js';
import { KEYS_OPENING } from './PetFileSerializer.js';
import { parsePetFile } from './parsePetFile.js';
import { readKeysInWorker } from './readKeysInWorker.js';

/** Below this many characters of keys (about 4,000 keys), a worker's start costs more than it saves. */
const WORKER_FROM = 1_000_000;

/** The opening the serialiser writes: the format, the next id (as JSON writes a number), then the animals' list. */
const HEADER = /^\{"format":2,"nextId":(0|[1-9]\d*),"pets":(?=\[)/;

/** What follows the animals' list and opens the keys' list, as the serialiser writes them (a key a line). */
const PETS_TO_KEYS = `],${KEYS_OPENING}`;

/**
 * A text laid out as the serialiser writes a file of many keys, cut into its pieces: the next
 * id, the animals' list, the keys' list and what follows it; `undefined` for any other text.
 * Each piece is checked by parsing it, so a text laid out otherwise (edited by hand, say)
 * is never misread, only read the usual way: a list's bracket followed by a line break is
 * outside every string (JSON strings hold no raw line break), and a piece that is not a
 * whole value does not parse.
 */
export const piecesOf = (text: string) => {
  const header = HEADER.exec(text);
  if (!header) return undefined;
  const opening = text.indexOf(PETS_TO_KEYS);
  // After the animals' bracket; at the keys' bracket; after the keys' bracket.
  const petsEnd = opening + 1;
  const keysStart = opening + PETS_TO_KEYS.length - 2;
  const keysEnd = text.lastIndexOf('\n]') + 2;
  if (opening === -1 || keysEnd - keysStart < WORKER_FROM) return undefined;
  return {
    nextId: Number(header[1]),
    pets: text.slice(header[0].length, petsEnd),
    keys: text.slice(keysStart, keysEnd),
    rest: text.slice(keysEnd),
  };
};

/** What follows the keys' list: nothing but the file's end, or its sync part; `undefined` when anything else. */
const syncOf = (rest: string): Pick<PetFileData, 'sync'> | undefined => {
  if (rest === '}\n' || rest === '}') return {};
  if (!rest.startsWith(',')) return undefined;
  const tail = JSON.parse(`{${rest.slice(1)}`) as unknown;
  return typeof tail === 'object' && tail !== null && Object.keys(tail).length === 1 && 'sync' in tail
    ? { sync: tail.sync as PetFileData['sync'] }
    : undefined;
};

/**
 * The content of the data file `file` whose text is `text`. A file of many keys, laid out as
 * the server writes it, has its keys parsed, checked and queued in a worker thread while
 * this one parses and checks the animals (at a million animals and 100,000 keys, about half
 * a second of a start ran beside the rest). Any other file, and any file with a problem, is
 * read by `parsePetFile` alone, which throws a DataFileError naming its first problem.
 */
export const readPetFileContent = async (text: string, file: string): Promise<PetFileContent> => {
  const pieces = piecesOf(text);
  if (pieces) {
    const keys = readKeysInWorker(pieces.keys);
    let data: PetFileData | undefined;
    try {
      const sync = syncOf(pieces.rest);
      const checked =
        sync && checkPetFile({ format: 2, nextId: pieces.nextId, pets: JSON.parse(pieces.pets), idempotencyKeys: [], ...sync });
      data = checked && 'data' in checked ? checked.data : undefined;
    } catch {
      data = undefined;
    }
    const queue = await keys;
    if (data && queue) return toPetFileContent(data, queue);
  }
  return toPetFileContent(parsePetFile(text, file));
};
