/** @module Unpadded base64url (RFC 4648 §5), for tokens the service makes: cursors and keys. */

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Unpadded base64url of the bytes from `start` up to `end` (all of them by default), by
 * table: a cursor is made per listed page and a payload digest per keyed create, so this is
 * on the hot path (bounds, not a `subarray`, which costs more than the encoding).
 */
export const toBase64Url = (bytes: Uint8Array, end = bytes.length, start = 0): string => {
  let text = '';
  let i = start;
  for (; i + 2 < end; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    text += BASE64URL[n >>> 18]! + BASE64URL[(n >>> 12) & 63]! + BASE64URL[(n >>> 6) & 63]! + BASE64URL[n & 63]!;
  }
  if (i + 1 === end) {
    const n = bytes[i]! << 16;
    text += BASE64URL[n >>> 18]! + BASE64URL[(n >>> 12) & 63]!;
  } else if (i + 2 === end) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    text += BASE64URL[n >>> 18]! + BASE64URL[(n >>> 12) & 63]! + BASE64URL[(n >>> 6) & 63]!;
  }
  return text;
};

/**
 * Decodes unpadded base64url, accepting only the one spelling `toBase64Url` makes: base64
 * lets the last character carry unused bits, and a token spelled differently (a cursor,
 * say) is not one the service made.
 */
export const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
  return toBase64Url(bytes) === text ? bytes : undefined;
};
