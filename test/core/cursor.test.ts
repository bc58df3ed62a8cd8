import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../core/catalogue/createCursorCodec.js';
import { webCryptoSha256 } from '../../core/digest.js';
import { PET_STATUSES } from '../../core/index.js';

const codec = createCursorCodec('secret', webCryptoSha256);
/** A decode as a promise: the codec answers at once (and throws at once) for a cursor it knows. */
const decoding = (decoder: typeof codec, cursor: string, status: (typeof PET_STATUSES)[number] | undefined) =>
  (async () => decoder.decode(cursor, status))();
const position = fc.record({
  after: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  status: fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
});

describe('page cursors', () => {
  it('decode what they encode, for any position and status', async () => {
    await fc.assert(
      fc.asyncProperty(position, async (at) => {
        const cursor = await codec.encode(at);
        expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
        expect(await codec.decode(cursor, at.status)).toEqual(at);
      }),
    );
  });

  it('are standard unpadded base64url, readable by any decoder', async () => {
    const cursor = await codec.encode({ after: 42, status: 'sold' });
    expect(Buffer.from(cursor.split('.')[0]!, 'base64url').toString()).toBe('1:42:sold');
  });

  it('refuse any change to a cursor, and cursors sealed with another secret', async () => {
    const other = createCursorCodec('another secret', webCryptoSha256);
    await fc.assert(
      fc.asyncProperty(position, fc.nat(), fc.constantFrom(...'ABCabc019-_'), async (at, index, replacement) => {
        const cursor = await codec.encode(at);
        const i = index % cursor.length;
        fc.pre(cursor[i] !== replacement && cursor[i] !== '.');
        const edited = `${cursor.slice(0, i)}${replacement}${cursor.slice(i + 1)}`;
        await expect(decoding(codec, edited, at.status)).rejects.toMatchObject({ code: 'validation_failed' });
        await expect(decoding(other, cursor, at.status)).rejects.toMatchObject({ code: 'validation_failed' });
      }),
      { numRuns: 500 },
    );
  });

  it('decode after a restart with the same secret, and refuse another filter even when just made', async () => {
    const cursor = await codec.encode({ after: 7, status: 'sold' });
    const restarted = createCursorCodec('secret', webCryptoSha256);
    expect(await restarted.decode(cursor, 'sold')).toEqual({ after: 7, status: 'sold' });
    expect(await restarted.decode(cursor, 'sold')).toEqual({ after: 7, status: 'sold' });
    for (const decoder of [codec, restarted]) {
      await expect(decoding(decoder, cursor, undefined)).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(decoding(decoder, cursor, 'pending')).rejects.toMatchObject({ code: 'validation_failed' });
    }
  });
});
