/** @module Walks a list of the data file laid out as the serialiser writes it, an item a line, reading it back a megabyte at a time. */
import { COPY_PIECE_BYTES, type Scratch } from '../../durableFile/index.js';
import { CLOSE_BRACE, COMMA, NEWLINE, OPEN_BRACE, OPEN_BRACKET } from '../format/jsonBytes.js';

/** Reads bytes back from the file as this process last wrote it, or answers `undefined` (see DurableTextFile.readOwnBytes). */
export type ReadOwnBytes = (offset: number, length: number, into?: Buffer) => Promise<Buffer | undefined>;

/**
 * Walks the `length` bytes from `offset` of the file, from a list's `[` to its last item's
 * `}` (with `endsWithLineBreak`, to the line break after it), laid out an item a line as the
 * serialiser writes it (`[`, a line break, `{…}`, and `,`, a line break and `{…}` for each
 * item after), read through `read` a megabyte at a time into `scratch`. Calls `line(position)` with each item's line break, in order
 * (`position` counted from the `[`). Each line break must stand between one item's `},`
 * and the next one's `{`: an item's text holds no raw line break (JSON escapes it), so each
 * one starts a line. Reads on while `more()` says so, and answers how far it read (`length`
 * once to the end), or `undefined` when the bytes read are laid out otherwise, a read
 * fails, `stopped()` says so or `line` answers false.
 */
export const walkListLines = async (
  read: ReadOwnBytes,
  offset: number,
  length: number,
  scratch: Scratch,
  line: (position: number) => boolean,
  { stopped, more = () => true, endsWithLineBreak = false }: { stopped: () => boolean; more?: () => boolean; endsWithLineBreak?: boolean },
): Promise<number | undefined> => {
  // Where the last item ends: the line break after it, if any, starts no line.
  const itemsEnd = endsWithLineBreak ? length - 1 : length;
  let from = 0;
  for (; from < length && more(); from += COPY_PIECE_BYTES) {
    if (stopped()) return undefined;
    // Two bytes before the piece and one after it: the separators around each line break.
    const readFrom = Math.max(0, from - 2);
    const readTo = Math.min(length, from + COPY_PIECE_BYTES + 1);
    const bytes = await read(offset + readFrom, readTo - readFrom, scratch.read(readTo - readFrom));
    if (bytes === undefined) return undefined;
    if (from === 0 && (bytes[0] !== OPEN_BRACKET || bytes[1] !== NEWLINE || bytes[2] !== OPEN_BRACE || !line(1))) return undefined;
    if (readTo === length && (bytes[itemsEnd - 1 - readFrom] !== CLOSE_BRACE || (endsWithLineBreak && bytes.at(-1) !== NEWLINE))) {
      return undefined;
    }
    const pieceEnd = Math.min(itemsEnd, from + COPY_PIECE_BYTES) - readFrom;
    for (let at = bytes.indexOf(NEWLINE, Math.max(from, 2) - readFrom); at !== -1 && at < pieceEnd; at = bytes.indexOf(NEWLINE, at + 1)) {
      if (bytes[at - 2] !== CLOSE_BRACE || bytes[at - 1] !== COMMA || bytes[at + 1] !== OPEN_BRACE) return undefined;
      if (!line(readFrom + at)) return undefined;
    }
  }
  return from;
};
