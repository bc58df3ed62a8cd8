import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnimalStoreError } from '../../../core/AnimalStoreError.js';
import { readIdempotencyKey } from '../../../core/http/readIdempotencyKey.js';

/** A key of visible ASCII and spaces, as the header carries it: a Structured Field String. */
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 255,
});
const quoted = (key: string) => `"${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

describe('readIdempotencyKey', () => {
  it('reads back any key written as a quoted string, with or without escapes and parameters', () => {
    fc.assert(
      fc.property(printable, fc.constantFrom('', ';a=1', ' '), (key, after) => {
        expect(readIdempotencyKey(`${quoted(key)}${after}`)).toBe(key);
      }),
    );
  });

  it('refuses a quoted key followed by a second one, or holding a control character, whatever comes before', () => {
    fc.assert(
      fc.property(printable, printable, (key, other) => {
        expect(() => readIdempotencyKey(`${quoted(key)}, ${quoted(other)}`)).toThrow(AnimalStoreError);
        expect(() => readIdempotencyKey(`${quoted(`${key}\t${other}`)}`)).toThrow(/not visible ASCII/);
      }),
    );
  });
});
