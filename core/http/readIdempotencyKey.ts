/** @module Reads the Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header). */
import { AnimalStoreError } from '../AnimalStoreError.js';

/** The longest key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const malformed = (why: string) =>
  new AnimalStoreError(
    'validation_failed',
    `The Idempotency-Key header ${why}; send one key of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, quoted: Idempotency-Key: "8e03978e-40d5-43e8".`,
    {
      details: [
        { path: 'Idempotency-Key', message: `must be one quoted string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters` },
      ],
    },
  );

/** What a quoted key may hold without escapes: visible ASCII and spaces, but no quote or backslash. */
const QUOTED_PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Visible ASCII other than the characters that would make an unquoted value ambiguous. */
const UNQUOTED = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/;

/**
 * The key of an Idempotency-Key header, or `undefined` when there is none. The draft makes
 * the value a Structured Field String (`"abc"`, with `\"` and `\\` escapes; parameters after
 * it are ignored). Clients written against older habits send the key bare, so a value
 * without quotes, spaces, commas, semicolons or backslashes is taken as the key itself:
 * `abc` and `"abc"` are the same key. Anything else (an unterminated string, control
 * characters, two keys joined by a comma, a key over 255 characters) is a 400.
 */
export const readIdempotencyKey = (header: string | null): string | undefined => {
  if (header === null) return undefined;
  const value = header.trim();
  let key: string;
  const close = value.indexOf('"', 1);
  if (value.startsWith('"') && close > 0 && QUOTED_PLAIN.test(value.slice(1, close))) {
    // The common case, a key without escapes. JSON reads such a quoted text as itself, and
    // its parse makes the key a string of its own: a slice of the header would keep the
    // header's text alive beside every stored key, and a key built character by character
    // is a chain of hundreds of bytes until it is flattened (this runs on every keyed create).
    key = JSON.parse(value.slice(0, close + 1)) as string;
    const rest = value.slice(close + 1);
    if (rest !== '' && !rest.startsWith(';')) throw malformed('holds more than one key');
  } else if (value.startsWith('"')) {
    key = '';
    let position = 1;
    for (;;) {
      if (position >= value.length) throw malformed('has a string without its closing quote');
      const char = value[position]!;
      if (char === '"') break;
      if (char === '\\') {
        const escaped = value[position + 1];
        if (escaped !== '"' && escaped !== '\\') throw malformed('has a backslash that escapes neither a quote nor a backslash');
        key += escaped;
        position += 2;
        continue;
      }
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) throw malformed('holds a character that is not visible ASCII');
      key += char;
      position++;
    }
    const rest = value.slice(position + 1);
    if (rest !== '' && !rest.startsWith(';')) throw malformed('holds more than one key');
  } else {
    if (!UNQUOTED.test(value)) throw malformed(value === '' ? 'is empty' : 'is neither a quoted string nor a plain key');
    key = value;
  }
  if (key.length === 0) throw malformed('is empty');
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw malformed(`is ${key.length} characters long`);
  return key;
};
