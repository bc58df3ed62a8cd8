/** @module Finds a data file's animals laid out as the serialiser writes them, an animal a line, for a whole write to copy. */
import { COPY_PIECE_BYTES, type Scratch } from '../durableFile/index.js';
import { CLOSE_BRACE, COMMA, NEWLINE, OPEN_BRACE } from './jsonBytes.js';
import type { ReadOwnBytes } from './KeyLines.js';
import type { PetLines } from './streamPetFile.js';

/**
 * How many bytes the lines of the first `animals` animals of the file's list take, from the
 * line break after its `[` to the last one's `}` (its comma left out): what the serialiser
 * makes of those animals (`\n{…},\n{…}`) when the file lies so; `undefined` when it does
 * not, cannot be read, or `stopped()` says so. The list (`lines`, as the start read it) is
 * read a megabyte at a time through `scratch`.
 *
 * Each line break must stand between one animal's `},` and the next one's `{` (the first
 * right after the `[`, the last right after the last `}`), and there must be one more than
 * the animals. That is one animal a line: a string holds no raw line break and an animal no
 * object, so a line that starts with `{` and ends with `}` holds whole animals, and as many
 * lines as animals leaves one each.
 */
export const findPetLines = async (
  read: ReadOwnBytes,
  { offset, length, count }: PetLines,
  animals: number,
  stopped: () => boolean,
  scratch: Scratch,
): Promise<number | undefined> => {
  if (animals < 1 || animals > count || length < 2) return undefined;
  let breaks = 0;
  let lastBreak = -1;
  let linesEnd: number | undefined;
  for (let from = 0; from < length; from += COPY_PIECE_BYTES) {
    if (stopped()) return undefined;
    // Two bytes before the piece and one after it: the separators around each line break.
    const readFrom = Math.max(0, from - 2);
    const readTo = Math.min(length, from + COPY_PIECE_BYTES + 1);
    const bytes = await read(offset + readFrom, readTo - readFrom, scratch.read(readTo - readFrom));
    if (bytes === undefined) return undefined;
    const pieceEnd = Math.min(length, from + COPY_PIECE_BYTES) - readFrom;
    for (let at = bytes.indexOf(NEWLINE, from - readFrom); at !== -1 && at < pieceEnd; at = bytes.indexOf(NEWLINE, at + 1)) {
      const position = readFrom + at;
      const between =
        breaks === 0
          ? position === 0 && bytes[at + 1] === OPEN_BRACE
          : position === length - 1
            ? bytes[at - 1] === CLOSE_BRACE
            : bytes[at - 2] === CLOSE_BRACE && bytes[at - 1] === COMMA && bytes[at + 1] === OPEN_BRACE;
      if (!between || breaks > count) return undefined;
      // The line break before animal `animals` (or after the last): the lines before it end at its comma.
      if (breaks === animals) linesEnd = position === length - 1 ? position : position - 1;
      breaks++;
      lastBreak = position;
    }
  }
  return breaks === count + 1 && lastBreak === length - 1 ? linesEnd : undefined;
};
