/** @module Text as UTF-8 bytes, with one encoder for the whole core. */

const encoder = new TextEncoder();

/** The UTF-8 bytes of `text`. */
export const encodeUtf8 = (text: string): Uint8Array => encoder.encode(text);
