import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeSha256 } from '../../../adapters/node/serve.js';
import { webCryptoSha256 } from '../../../core/digest.js';
import { encodeUtf8 } from '../../../core/encodeUtf8.js';

describe('nodeSha256', () => {
  it('gives the digest Web Crypto gives, for bytes and for text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 100 }), async (bytes, text) => {
        expect(await nodeSha256(bytes)).toEqual(await webCryptoSha256(bytes));
        expect(await nodeSha256.text!(text)).toEqual(await webCryptoSha256(encodeUtf8(text)));
      }),
    );
  });
});
