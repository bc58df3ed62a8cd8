/**
 * @module Parses a list of objects, as a data file's animals and keys are, a small piece at
 * a time, however the list is spaced.
 */

/**
 * How many bytes one parse takes at most: below V8's large-object size, so the text and
 * the values it makes live in the young generation, whose pages are reused, and a piece's
 * values the caller does not keep die there, never copied to the old generation.
 */
const PIECE_BYTES = 64 * 1024;

/**
 * Where a piece may end: an object's closing brace and a comma, as every common layout
 * writes them between two items (the serialiser's `},\n{`, `JSON.stringify`'s `},{`, an
 * indented `},\n  {`).
 */
const ITEM_END = Buffer.from('},');

/**
 * How many ends a piece tries, from the last one back, before the list counts as laid out
 * otherwise: an end found inside an item (a name holding `},`) fails to parse, so the one
 * before it is tried.
 */
const ENDS_TRIED = 8;

/** Where the comma of the last item end before `before` is in `bytes` (the end wholly before it), or -1. */
const commaBefore = (bytes: Buffer, before: number): number => {
  // Checked here: a negative offset would have Buffer's lastIndexOf count from the end.
  if (before < 2) return -1;
  const end = bytes.lastIndexOf(ITEM_END, before - 2);
  return end === -1 ? -1 : end + 1;
};

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
 * A piece ends at an item's end (`},`), and parses as the items of a list exactly when that
 * comma is the list's own: one inside a string leaves the string open in the piece, one
 * inside an item leaves its brackets open. Every piece but the last of the list holds an
 * item (`held`: items came before `bytes`), so the pieces together are the list. Returns
 * where the next stretch starts in `bytes` (after the last comma it cut at; their length
 * when `last`), or `undefined` for a list laid out otherwise (no item's end within a
 * piece), not valid, or whose items `use` refused (answering false).
 */
export const parseListPieces = (bytes: Buffer, last: boolean, held: boolean, use: (items: unknown[]) => boolean): number | undefined => {
  let start = 0;
  while (start < bytes.byteLength) {
    const limit = Math.min(start + PIECE_BYTES, bytes.byteLength);
    let comma = limit;
    let items: unknown[] | undefined;
    if (last && limit === bytes.byteLength) items = itemsOf(bytes.toString('utf8', start, comma));
    else {
      comma = commaBefore(bytes, limit);
      if (comma <= start) {
        if (limit < bytes.byteLength) return undefined;
        break;
      }
      for (let tried = 1; ; tried++) {
        items = itemsOf(bytes.toString('utf8', start, comma));
        const earlier = commaBefore(bytes, comma);
        if (items !== undefined || tried === ENDS_TRIED || earlier <= start) break;
        comma = earlier;
      }
    }
    if (items === undefined || (items.length === 0 && (comma < bytes.byteLength || held)) || !use(items)) return undefined;
    held ||= items.length > 0;
    start = comma + 1;
  }
  return Math.min(start, bytes.byteLength);
};
