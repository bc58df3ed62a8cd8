/**
 * @module Lowercase hex texts kept four bits a digit, as bytes: UUIDs as `crypto.randomUUID`
 * writes them (most Idempotency-Keys) and hex tokens (our kiosk page's, many clients').
 */

/** How many bytes a packed UUID takes: its 32 hex digits, two a byte. */
export const UUID_BYTES = 16;

/** How many characters a UUID has: 32 hex digits and 4 dashes. */
const UUID_LENGTH = 36;

/** Whether the character at `index` of a UUID is a dash (8-4-4-4-12 digits). */
const isDashAt = (index: number): boolean => index === 8 || index === 13 || index === 18 || index === 23;

/** The value of a lowercase hex digit's character code, or -1. */
const digitValue = (code: number): number => (code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1);

/** The character code of each four-bit value. */
const HEX = Uint8Array.from('0123456789abcdef', (char) => char.charCodeAt(0));

/**
 * Whether `text` is a UUID as `crypto.randomUUID` writes it: 36 characters, lowercase hex
 * digits with dashes at 8, 13, 18 and 23 (any version). Only that spelling packs, so every
 * packed key reads back as it came; an uppercase one is kept another way.
 */
export const isUuidText = (text: string): boolean => {
  if (text.length !== UUID_LENGTH) return false;
  for (let index = 0; index < UUID_LENGTH; index++) {
    const code = text.charCodeAt(index);
    if (isDashAt(index) ? code !== 45 : digitValue(code) < 0) return false;
  }
  return true;
};

/** Writes the UUID `text` (see `isUuidText`) into `bytes[at … at + 15]`, two digits a byte, first to last. */
export const packUuid = (text: string, bytes: Uint8Array, at: number): void => {
  let high = -1;
  for (let index = 0; index < UUID_LENGTH; index++) {
    if (isDashAt(index)) continue;
    const value = digitValue(text.charCodeAt(index));
    if (high < 0) high = value;
    else {
      bytes[at++] = (high << 4) | value;
      high = -1;
    }
  }
};

/** Sets `codes` to the character codes of the UUID `packUuid` wrote at `bytes[at …]`. */
export const unpackUuid = (bytes: Uint8Array, at: number, codes: number[]): void => {
  codes.length = UUID_LENGTH;
  let index = 0;
  for (let byte = 0; byte < UUID_BYTES; byte++) {
    const value = bytes[at + byte]!;
    if (isDashAt(index)) codes[index++] = 45;
    codes[index++] = HEX[value >>> 4]!;
    if (isDashAt(index)) codes[index++] = 45;
    codes[index++] = HEX[value & 15]!;
  }
};

/** Whether every character of `text` is a lowercase hex digit (an uppercase one is kept another way, to read back as it came). */
export const isHexText = (text: string): boolean => {
  for (let index = 0; index < text.length; index++) if (digitValue(text.charCodeAt(index)) < 0) return false;
  return true;
};

/** How many bytes `packHex` takes for a text of `digits` digits. */
export const hexBytes = (digits: number): number => Math.ceil(digits / 2);

/** Writes the hex text `text` (see `isHexText`) into `bytes[at …]`, two digits a byte, the last byte's low half zero for an odd count. */
export const packHex = (text: string, bytes: Uint8Array, at: number): void => {
  for (let index = 0; index < text.length; index += 2) {
    const low = index + 1 < text.length ? digitValue(text.charCodeAt(index + 1)) : 0;
    bytes[at++] = (digitValue(text.charCodeAt(index)) << 4) | low;
  }
};

/** Sets `codes` to the character codes of the `digits` digits `packHex` wrote at `bytes[at …]`. */
export const unpackHex = (bytes: Uint8Array, at: number, digits: number, codes: number[]): void => {
  codes.length = digits;
  for (let index = 0; index < digits; index++) {
    const value = bytes[at + (index >>> 1)]!;
    codes[index] = HEX[(index & 1) === 0 ? value >>> 4 : value & 15]!;
  }
};
