import { describe, expect, it } from 'vitest';
import { freeableBuffer, freeableBytes, freeBuffer } from '../../../storage/durableFile/freeableBuffer.js';

const MIB = 1024 * 1024;

describe('freeableBuffer', () => {
  it("Should give a freed buffer's memory back to the system at once, with no collection", () => {
    const before = process.memoryUsage.rss();
    const buffers = Array.from({ length: 8 }, () => freeableBuffer(8 * MIB).fill(7));
    const held = process.memoryUsage.rss();
    expect(held - before).toBeGreaterThan(56 * MIB);
    expect(buffers.every((bytes) => bytes.byteLength === 8 * MIB && bytes[8 * MIB - 1] === 7)).toBe(true);
    for (const bytes of buffers) freeBuffer(bytes);
    // The buffers are still referenced here: only freeing can have given their pages back.
    expect(held - process.memoryUsage.rss()).toBeGreaterThan(56 * MIB);
    expect(buffers.every((bytes) => bytes.byteLength === 0 && bytes[0] === undefined)).toBe(true);
  });

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
