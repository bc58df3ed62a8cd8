/** @module The keys' part of a data file laid out as the serialiser writes it: its keys' queue, and what follows the list. */
import { IdempotencyKeys, type IdempotencyKeysSnapshot } from '../IdempotencyKeys.js';
import { keysProblem } from './checkPetFile.js';
import { parseListPieces } from './listPieces.js';
import { type IdempotencyKeyInFile, keyFromFile } from './PetFileData.js';

/** What `readKeysPart` makes of the bytes from the keys' list to the file's end. */
export interface KeysPart {
  /** The list's keys, checked, as a queue's snapshot (to send from a worker thread). */
  snapshot: IdempotencyKeysSnapshot;
  /** The text after the list: the file's end, or its sync part and end. */
  rest: string;
  /** Where the list's key lines lie in these bytes (the line break after its `[` to the one before its `]`), when it has any. */
  lines: { start: number; length: number } | undefined;
}

/** The list's end as the serialiser writes it: `[]`, or its last key's line break and `]`. */
const LAST_LINE_END = Buffer.from('\n]');

/** How many line breaks `bytes` holds: a key a line, about how many keys its list holds. */
const lineBreaksIn = (bytes: Buffer): number => {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
};

/**
 * The keys' list at the start of `bytes` (`[]`, or a key a line up to `\n]`, as the
 * serialiser writes it), parsed and checked, and the text after it; `undefined` when the
 * list is laid out otherwise or is not valid: the caller then reads the file the usual way,
 * which names what is wrong. Run in a worker thread for a long list (see `readKeysInWorker`).
 *
 * The list is parsed a piece at a time (`parseListPieces`) and each piece's keys go into
 * the queue at once: parsed whole, 100,000 keys were 700,000 objects and strings alive
 * together until the queue took them, copied by every young collection on the way to the
 * old generation, where now each piece's die young.
 */
export const readKeysPart = (bytes: Uint8Array): KeysPart | undefined => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A bracket followed by a line break is outside every string: JSON strings hold no raw line break.
  const empty = buffer[0] === 0x5b && buffer[1] === 0x5d;
  const lastLine = empty ? -1 : buffer.lastIndexOf(LAST_LINE_END);
  if (buffer[0] !== 0x5b || (!empty && lastLine < 1)) return undefined;
  const end = empty ? 2 : lastLine + LAST_LINE_END.length;
  const items = buffer.subarray(1, end - 1);
  const keys = new IdempotencyKeys([], lineBreaksIn(items));
  const take = (piece: unknown[]): boolean => {
    if (keysProblem(2, piece)) return false;
    for (const key of piece as IdempotencyKeyInFile[]) keys.add(keyFromFile(key));
    return true;
  };
  if (parseListPieces(items, true, false, take) === undefined) return undefined;
  return {
    snapshot: keys.snapshot(),
    rest: buffer.toString('utf8', end),
    lines: keys.size === 0 || buffer[1] !== 0x0a ? undefined : { start: 1, length: lastLine - 1 },
  };
};
