/** @module Base64url text (payload digests, most Idempotency-Keys) kept six bits a character, as bytes. */
import { toBase64Url } from '../core/base64url.js';
import { FINGERPRINT_BYTES, OLDER_FINGERPRINT_LENGTH } from '../core/PetStorage.js';

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
 * Writes the first `characters` characters of `text` (all by default; every one a base64url
 * one, see `isBase64UrlText`) into `bytes[at …]`, six bits a character, first to last, the
 * last byte padded with zero bits: four characters to three bytes, as base64url decodes them.
 */
export const packBase64Url = (text: string, bytes: Uint8Array, at: number, characters = text.length): void => {
  let bits = 0;
  let count = 0;
  for (let index = 0; index < characters; index++) {
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

/** How many bytes a packed digest takes: a payload fingerprint's (see `FINGERPRINT_BYTES`). */
export const DIGEST_BYTES = FINGERPRINT_BYTES;

/** How many characters a digest has: 8 bytes in base64url (11), the last character's two low bits zero. */
const DIGEST_LENGTH = Math.ceil((DIGEST_BYTES * 8) / 6);

/**
 * Packs `text`'s first 8 bytes into `bytes[at … at + 7]` when it is a digest the service
 * makes (11 base64url characters that read back exactly) or made before (32 characters, whose
 * first 8 bytes are all a fingerprint is compared by); answers false, changing nothing, for
 * any other text. Kept so, a digest takes 8 bytes where its string took 32 and was one more
 * object for the garbage collector, a hundred thousand of them at a day's keys.
 */
export const packDigest = (text: string, bytes: Uint8Array, at: number): boolean => {
  const older = text.length === OLDER_FINGERPRINT_LENGTH;
  if ((!older && text.length !== DIGEST_LENGTH) || !isBase64UrlText(text)) return false;
  // The 11th character's two low bits are beyond the 64: an 11-character text with them set
  // would not read back as written.
  const eleventh = VALUE[text.charCodeAt(DIGEST_LENGTH - 1)]!;
  if (!older && (eleventh & 3) !== 0) return false;
  // Ten characters are 60 bits, 7 bytes and the high half of the 8th; the 11th gives the rest.
  packBase64Url(text, bytes, at, DIGEST_LENGTH - 1);
  bytes[at + DIGEST_BYTES - 1]! |= eleventh >>> 2;
  return true;
};

/** The text of the 8 bytes `packDigest` packed at `bytes[at …]`: 11 characters, as `toBase64Url` spells them. */
export const unpackDigest = (bytes: Uint8Array, at: number): string => toBase64Url(bytes, at + DIGEST_BYTES, at);
