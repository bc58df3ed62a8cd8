/**
 * @module JSON text to a value without rounding a number and without dropping a key given
 * twice: the engine's JSON.parse when one pass over the text proves it gives the same value,
 * lossless-json otherwise.
 */
import { isSafeNumber, LosslessNumber, parse } from 'lossless-json';

/**
 * Keeps numbers JavaScript holds exactly and hands back the others as LosslessNumber
 * objects, so validation rejects `12345678901234567890` instead of accepting a rounding.
 */
const parseNumberExactly = (text: string): number | LosslessNumber => (isSafeNumber(text) ? Number(text) : new LosslessNumber(text));

/** The slow, exact reading, and the one whose errors (and their messages) callers see. */
const parseLosslessly = (text: string): unknown => parse(text, undefined, parseNumberExactly);

// JSON.parse reads an integer of up to 15 digits exactly (2^53 has 16); a fraction or an
// exponent may round. Nesting this deep or deeper is left to lossless-json, which decides
// when it is too deep.
const MAX_EXACT_DIGITS = 15;
const MAX_PLAIN_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * One pass over the text outside its strings: how many keys it names (a string followed by
 * a colon), or `undefined` when it holds a number JSON.parse might round (a fraction, an
 * exponent, more than 15 digits) or nests deeper than 64. Says nothing of whether the text
 * is JSON: JSON.parse does.
 */
const countKeysOfPlainText = (text: string): number | undefined => {
  let keys = 0;
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      let end = at + 1;
      while (end < text.length) {
        const inside = text.charCodeAt(end);
        if (inside === QUOTE) break;
        end += inside === BACKSLASH ? 2 : 1;
      }
      let next = end + 1;
      while (isWhitespace(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === COLON) keys++;
      at = end;
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth >= MAX_PLAIN_DEPTH) return undefined;
    } else if (code === 0x7d || code === 0x5d) {
      depth--;
    } else if (isDigit(code)) {
      let end = at + 1;
      while (isDigit(text.charCodeAt(end))) end++;
      const after = text.charCodeAt(end);
      if (end - at > MAX_EXACT_DIGITS || after === 0x2e || after === 0x65 || after === 0x45) return undefined;
      at = end - 1;
    }
  }
  return keys;
};

/** How many members the objects of a parsed value hold, all levels counted. */
const countMembers = (value: unknown): number => {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countMembers(item);
  } else {
    for (const key of Object.keys(value)) count += 1 + countMembers((value as Record<string, unknown>)[key]);
  }
  return count;
};

/**
 * Parses JSON text as lossless-json does with exact numbers: integers and decimals that
 * JavaScript holds exactly become numbers, the others LosslessNumber objects; a key given
 * twice with different values is a SyntaxError. JSON.parse gives the same value, much
 * faster, when every number is an integer of at most 15 digits and no key is given twice
 * (then its objects hold as many members as the text names keys), so it is tried first;
 * anything else, invalid text included, is read by lossless-json, whose errors are thrown.
 */
export const parseJsonExactly = (text: string): unknown => {
  const keys = countKeysOfPlainText(text);
  if (keys !== undefined) {
    let value: unknown;
    let parsed = false;
    try {
      value = JSON.parse(text);
      parsed = true;
    } catch {
      // Invalid text: lossless-json says why, in its words.
    }
    if (parsed && countMembers(value) === keys) return value;
  }
  return parseLosslessly(text);
};
