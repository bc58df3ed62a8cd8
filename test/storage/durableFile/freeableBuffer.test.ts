import { describe, expect, it } from 'vitest';
import { freeableBytes, freeBuffer } from '../../../storage/durableFile/freeableBuffer.js';

describe('freeableBuffer', () => {
  it("Should hold a text's UTF-8 bytes, and leave buffers it did not make as they are", () => {
    const text = 'Rex "the dog" é 🐕\n';
    const bytes = freeableBytes(text);
    expect(bytes.toString('utf8')).toBe(text);
    expect(bytes.byteLength).toBe(Buffer.byteLength(text));
    const ordinary = Buffer.from(text);
    freeBuffer(ordinary);
    expect(ordinary.toString('utf8')).toBe(text);
    const slice = freeableBytes(text).subarray(3, 6);
    freeBuffer(slice);
    expect(slice.byteLength).toBe(0);
  });
});
