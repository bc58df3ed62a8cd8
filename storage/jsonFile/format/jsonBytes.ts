/** @module The bytes of JSON's punctuation and spacing that data files are laid out, read and checked by, in the document and in the journal. */

export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const COMMA = 0x2c;
/** The colon between a field's name and its value: JSON's name separator. */
const NAME_SEPARATOR = 0x3a;
export const NEWLINE = 0x0a;

/** Whether `byte` is JSON's spacing: a space, a tab, a line feed or a carriage return. */
export const isSpacing = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x09 || byte === NEWLINE || byte === 0x0d;

/** The last byte of `bytes` before `at` that is not spacing, or -1 when there is none. */
export const lastUnspacedBefore = (bytes: Uint8Array, at: number): number => {
  let before = at - 1;
  while (before >= 0 && isSpacing(bytes[before])) before--;
  return before;
};

/** The first byte of `bytes` from `at` on that is not spacing (their length when there is none). */
const firstUnspacedFrom = (bytes: Uint8Array, at: number): number => {
  let from = at;
  while (from < bytes.length && isSpacing(bytes[from])) from++;
  return from;
};

/**
 * Where the list after the field name ending at `at` starts (its `[`), when only a colon and
 * spacing part them; -1 when not.
 */
export const listStartAfter = (bytes: Uint8Array, at: number): number => {
  const colon = firstUnspacedFrom(bytes, at);
  const opening = firstUnspacedFrom(bytes, colon + 1);
  return bytes[colon] === NAME_SEPARATOR && bytes[opening] === OPEN_BRACKET ? opening : -1;
};
