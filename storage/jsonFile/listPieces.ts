/**
 * @module Parses a list laid out an item a line, as the serialiser writes a data file's
 * animals and keys, a small piece at a time.
 */

/**
 * How many bytes one parse takes at most: below V8's large-object size, so the text and
 * the values it makes live in the young generation, whose pages are reused, and a piece's
 * values the caller does not keep die there, never copied to the old generation.
 */
const PIECE_BYTES = 64 * 1024;

/** What separates two items' lines: outside every string, since JSON strings hold no raw line break. */
const LINE_BREAK_AFTER_COMMA = Buffer.from(',\n');

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
 * Parses `bytes`, the items of a list or a stretch of them from its start on (`last`: up to
 * its end), a piece of at most PIECE_BYTES at a time, handing each piece's values to `use`.
 * A piece ends before a comma followed by a line break, so it parses as the items of a list
 * exactly when that comma is the list's own (a comma inside an item leaves brackets open in
 * the piece); every piece but the last of the list holds an item (`held`: items came before
 * `bytes`), so the pieces together are the list. Returns where the next stretch starts in
 * `bytes` (after the last comma it cut at; their length when `last`), or `undefined` for a
 * list laid out otherwise (a line longer than a piece: not the serialiser's), not valid, or
 * whose items `use` refused (answering false).
 */
export const parseListPieces = (bytes: Buffer, last: boolean, held: boolean, use: (items: unknown[]) => boolean): number | undefined => {
  let start = 0;
  while (start < bytes.byteLength) {
    const limit = Math.min(start + PIECE_BYTES, bytes.byteLength);
    const comma = last && limit === bytes.byteLength ? limit : bytes.lastIndexOf(LINE_BREAK_AFTER_COMMA, limit - 2);
    if (comma < start) {
      if (limit < bytes.byteLength) return undefined;
      break;
    }
    const items = itemsOf(bytes.toString('utf8', start, comma));
    if (items === undefined || (items.length === 0 && (comma < bytes.byteLength || held)) || !use(items)) return undefined;
    held ||= items.length > 0;
    start = comma + 1;
  }
  return Math.min(start, bytes.byteLength);
};
