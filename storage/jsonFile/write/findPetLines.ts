/** @module Finds a data file's animals laid out as the serialiser writes them, an animal a line, for a whole write to copy. */
import type { Scratch } from '../../durableFile/index.js';
import { type ReadOwnBytes, walkListLines } from './listLines.js';

/**
 * Where a data file's animals' list lies (bytes from after its `[` to its `]`) and how many
 * animals it holds, as the start read it (`ReadContent.petLines`).
 */
export interface PetLines {
  offset: number;
  length: number;
  count: number;
}

/**
 * How many bytes the lines of the first `animals` animals of the file's list take, from the
 * line break after its `[` to the last one's `}` (its comma left out): what the serialiser
 * makes of those animals (`\n{…},\n{…}`) when the file lies so; `undefined` when it does
 * not, cannot be read, or `stopped()` says so. The list (`lines`, as the start read it,
 * from after its `[` to its `]`) is walked from its `[` to the line break before its `]`, a
 * megabyte at a time through `scratch` (see `walkListLines`), and must hold as many lines
 * as animals. That is one animal a line: a string holds no raw line break and an animal no
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
  // From the `[`, which each line's position counts from, to the line break before the `]`.
  const fromBracket = length + 1;
  let lines = 0;
  let linesEnd: number | undefined;
  const line = (position: number) => {
    if (lines === count) return false;
    // The line break of animal `animals`: the lines before it end at its comma, the one before the break.
    if (lines === animals) linesEnd = position - 2;
    lines++;
    return true;
  };
  const reached = await walkListLines(read, offset - 1, fromBracket, scratch, line, { stopped, endsWithLineBreak: true });
  if (reached === undefined || lines !== count) return undefined;
  // All of them: to the last `}`, before the line break.
  return animals === count ? fromBracket - 2 : linesEnd;
};
