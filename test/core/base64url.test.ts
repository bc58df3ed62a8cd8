import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from '../../core/base64url.js';

describe('toBase64Url', () => {
  it("writes what Node's base64url writes, for all the bytes or the first few", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(), (bytes, cut) => {
        const length = cut % (bytes.length + 1);
        expect(toBase64Url(bytes)).toBe(Buffer.from(bytes).toString('base64url'));
        expect(toBase64Url(bytes, length)).toBe(Buffer.from(bytes.subarray(0, length)).toString('base64url'));
        expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
      }),
    );
  });
});
