/** @module A payload digest as the service makes it (24 bytes in base64url, 32 characters) kept as its 24 bytes. */

/** The base64url characters, each at the place of the six bits it stands for. */
export const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The six bits each base64url character stands for, or -1 (by character code, below 128). */
export const VALUE = new Int8Array(128).fill(-1);
for (let at = 0; at < ALPHABET.length; at++) VALUE[ALPHABET.charCodeAt(at)] = at;

/** How many bytes a packed digest takes. */
export const DIGEST_BYTES = 24;

/** How many characters a packable digest has: 24 bytes, no padding, so every such text reads back exactly. */
const DIGEST_LENGTH = 32;

/**
 * Packs `text` into `bytes[at … at + 23]` when it is 32 base64url characters (the service's
 * digests), four characters to three bytes; answers false, changing nothing, for any other
 * text. Kept so, a digest takes 24 bytes where its string took 48 and was one more object
 * for the garbage collector, a hundred thousand of them at a day's keys.
 */
export const packDigest = (text: string, bytes: Uint8Array, at: number): boolean => {
  if (text.length !== DIGEST_LENGTH) return false;
  for (let offset = 0; offset < DIGEST_LENGTH; offset++) {
    const code = text.charCodeAt(offset);
    if (code >= 128 || VALUE[code]! < 0) return false;
  }
  for (let group = 0; group < DIGEST_LENGTH / 4; group++) {
    let bits = 0;
    for (let offset = group * 4; offset < group * 4 + 4; offset++) bits = (bits << 6) | VALUE[text.charCodeAt(offset)]!;
    bytes[at + group * 3] = bits >>> 16;
    bytes[at + group * 3 + 1] = (bits >>> 8) & 255;
    bytes[at + group * 3 + 2] = bits & 255;
  }
  return true;
};

/** The text packed at `bytes[at …]` by `packDigest`. */
export const unpackDigest = (bytes: Uint8Array, at: number): string => {
  let text = '';
  for (let group = 0; group < DIGEST_LENGTH / 4; group++) {
    const bits = (bytes[at + group * 3]! << 16) | (bytes[at + group * 3 + 1]! << 8) | bytes[at + group * 3 + 2]!;
    text += ALPHABET[(bits >>> 18) & 63]! + ALPHABET[(bits >>> 12) & 63]! + ALPHABET[(bits >>> 6) & 63]! + ALPHABET[bits & 63]!;
  }
  return text;
};
