/** @module The keys' part of a data file: its keys' list as a queue; the journal's keys too, when given. */
import type { Changes } from '../../durableFile/index.js';
import { IdempotencyKeys, type IdempotencyKeysSnapshot } from '../../IdempotencyKeys.js';
import { keysProblem } from '../format/checkPetFile.js';
import { CLOSE_BRACE, CLOSE_BRACKET, NEWLINE, OPEN_BRACE, OPEN_BRACKET } from '../format/jsonBytes.js';
import { type ReadChanges, readPetChanges } from '../format/PetChange.js';
import { type IdempotencyKeyInFile, keyFromFile } from '../format/PetFileData.js';
import { parseListPieces } from './listPieces.js';

/** What `readKeysPart` makes of a data file's keys' list. */
export interface KeysPart {
  /** The list's keys, checked, as a queue's snapshot (to send from a worker thread). */
  snapshot: IdempotencyKeysSnapshot;
  /** Where the list's key lines lie in these bytes (the line break after its `[` to the one before its `]`), when it has any. */
  lines: { start: number; length: number } | undefined;
  /** The sequence number after the list's last key: the keys after it in the snapshot are the journal's. */
  keysEnd: number;
  /** What the journal's changes add beyond their keys (see `readPetChanges`), when given its changes. */
  changes?: ReadChanges | undefined;
}

/** How many closing braces `bytes` holds: one a key, about how many keys its list holds. */
const closingBracesIn = (bytes: Buffer): number => {
  let count = 0;
  for (let at = bytes.indexOf(CLOSE_BRACE); at !== -1; at = bytes.indexOf(CLOSE_BRACE, at + 1)) count++;
  return count;
};

/**
 * The keys' list `bytes` (from its `[` to its `]`), parsed and checked; `undefined` when
 * the list is laid out otherwise or is not valid: the caller then reads the file the usual
 * way, which names what is wrong. Run in a worker thread for a long list (see
 * `readKeysInWorker`). Any spacing will do; where the key lines lie is said only of a list
 * laid out as the serialiser writes it, a key a line (`[`, a line break, `{` … `}`, a line
 * break, `]`), for a whole write to copy.
 *
 * The list is parsed a piece at a time (`parseListPieces`) and each piece's keys go into
 * the queue at once: parsed whole, 100,000 keys were 700,000 objects and strings alive
 * together until the queue took them, copied by every young collection on the way to the
 * old generation, where now each piece's die young.
 *
 * Given the journal's changes, reads them too (`readPetChanges`): their keys go into the
 * queue after the list's, so a start replays them beside the animals' parse; `undefined`
 * when one is not a valid change (the caller then replays them itself, which says why).
 */
export const readKeysPart = (bytes: Uint8Array, journal?: Changes): KeysPart | undefined => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = buffer.byteLength - 1;
  if (buffer[0] !== OPEN_BRACKET || buffer[end] !== CLOSE_BRACKET || end < 1) return undefined;
  const items = buffer.subarray(1, end);
  const keys = new IdempotencyKeys([], closingBracesIn(items));
  const take = (piece: unknown[]): boolean => {
    if (keysProblem(2, piece)) return false;
    for (const key of piece as IdempotencyKeyInFile[]) keys.add(keyFromFile(key));
    return true;
  };
  if (parseListPieces(items, true, false, take) === undefined) return undefined;
  const aKeyALine = buffer[1] === NEWLINE && buffer[2] === OPEN_BRACE && buffer[end - 1] === NEWLINE && buffer[end - 2] === CLOSE_BRACE;
  const lines = keys.size > 0 && aKeyALine ? { start: 1, length: end - 2 } : undefined;
  const keysEnd = keys.end;
  let changes: ReadChanges | undefined;
  if (journal && journal.length > 0) {
    try {
      changes = readPetChanges(journal, '', keys);
    } catch {
      return undefined;
    }
  }
  return { snapshot: keys.snapshot(), lines, keysEnd, changes };
};
