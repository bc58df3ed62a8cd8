/** @module SHA-256, the one hash the core uses, from Web Crypto unless a faster one is given. */
import { encodeUtf8 } from './encodeUtf8.js';

/** Computes a SHA-256 digest; may answer synchronously (a runtime's native hash) or not. */
export interface Sha256 {
  (data: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /**
   * The digest of a text's UTF-8 bytes, when the hash can take text itself: a native hash
   * reads the string in place, where encoding it to bytes first costs a copy (about as
   * much as hashing a short text). Without it, texts are encoded and hashed as bytes.
   */
  text?(text: string): Uint8Array | Promise<Uint8Array>;
}

/** SHA-256 from Web Crypto, which every runtime the core targets has. */
export const webCryptoSha256: Sha256 = async (data) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));

/** The SHA-256 digest of a text's UTF-8 bytes. */
export const sha256Text = (sha256: Sha256, text: string) => (sha256.text ? sha256.text(text) : sha256(encodeUtf8(text)));

/** Compares two byte arrays in time that depends only on their lengths. */
export const equalInConstantTime = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
};

/** Lowercase hex of bytes, for short fingerprints in logs. */
export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
