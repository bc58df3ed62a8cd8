/** @module Base64url text (payload digests, most Idempotency-Keys) kept six bits a character, as bytes. */

/** The base64url characters, each at the place of the six bits it stands for. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The six bits each base64url character stands for, or -1 (by character code, below 128). */
const VALUE = new Int8Array(128).fill(-1);
for (let at = 0; at < ALPHABET.length; at++) VALUE[ALPHABET.charCodeAt(at)] = at;

/** The character code of each six-bit value. */
const CODE = Uint8Array.from(ALPHABET, (char) => char.charCodeAt(0));

/** Whether every character of `text` is a base64url one (digests, UUIDs, hex, base64url tokens), so it packs in six bits each. */
export const isBase64UrlText = (text: string): boolean => {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 128 || VALUE[code]! < 0) return false;
  }
  return true;
};

/** How many bytes `packBase64Url` takes for a text of `characters` characters. */
export const packedBytes = (characters: number): number => Math.ceil((characters * 6) / 8);

/**
 * Writes `text` (every character a base64url one, see `isBase64UrlText`) into
 * `bytes[at …]`, six bits a character, first to last, the last byte padded with zero bits:
 * four characters to three bytes, as base64url decodes them.
 */
export const packBase64Url = (text: string, bytes: Uint8Array, at: number): void => {
  let bits = 0;
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    bits = ((bits << 6) | VALUE[text.charCodeAt(index)]!) & 0xffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[at++] = bits >>> count;
    }
  }
  if (count > 0) bytes[at] = bits << (8 - count);
};

/** Sets `codes` to the character codes of the `characters` characters `packBase64Url` wrote at `bytes[at …]`. */
export const unpackBase64Url = (bytes: Uint8Array, at: number, characters: number, codes: number[]): void => {
  codes.length = characters;
  let bits = 0;
  let count = 0;
  for (let index = 0; index < characters; index++) {
    if (count < 6) {
      bits = ((bits << 8) | bytes[at++]!) & 0xffff;
      count += 8;
    }
    count -= 6;
    codes[index] = CODE[(bits >>> count) & 63]!;
  }
};

/** How many bytes a packed digest takes. */
export const DIGEST_BYTES = 24;

/** How many characters a packable digest has: 24 bytes, no padding, so every such text reads back exactly. */
const DIGEST_LENGTH = 32;

/**
 * Packs `text` into `bytes[at … at + 23]` when it is 32 base64url characters (the service's
 * digests); answers false, changing nothing, for any other text. Kept so, a digest takes
 * 24 bytes where its string took 48 and was one more object for the garbage collector, a
 * hundred thousand of them at a day's keys.
 */
export const packDigest = (text: string, bytes: Uint8Array, at: number): boolean => {
  if (text.length !== DIGEST_LENGTH || !isBase64UrlText(text)) return false;
  packBase64Url(text, bytes, at);
  return true;
};

/** The character codes of the digest `unpackDigest` is reading (it reads one at a time). */
const digestCodes: number[] = [];

/** The text packed at `bytes[at …]` by `packDigest`, as a flat string. */
export const unpackDigest = (bytes: Uint8Array, at: number): string => {
  unpackBase64Url(bytes, at, DIGEST_LENGTH, digestCodes);
  return String.fromCharCode.apply(null, digestCodes);
};
