/** @module The bytes of JSON's punctuation and spacing that data files are laid out, read and checked by, in the document and in the journal. */

export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const COMMA = 0x2c;
export const NEWLINE = 0x0a;

/** Whether `byte` is JSON's spacing: a space, a tab, a line feed or a carriage return. */
export const isSpacing = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x09 || byte === NEWLINE || byte === 0x0d;

/** The last byte of `bytes` before `at` that is not spacing, or -1 when there is none. */
export const lastUnspacedBefore = (bytes: Uint8Array, at: number): number => {
  let before = at - 1;
  while (before >= 0 && isSpacing(bytes[before])) before--;
  return before;
};

/** A pattern's text for JSON's tokens `tokens` (each a pattern's text) with any spacing between them. */
export const spacedPattern = (...tokens: string[]): string => tokens.join('[ \\t\\n\\r]*');
