/** @module The bytes of JSON's punctuation that key lines are laid out and checked by, in the document and in the journal. */

export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const COMMA = 0x2c;
export const NEWLINE = 0x0a;
