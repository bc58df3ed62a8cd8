import fs, { type FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { DeferredPart } from '../../../storage/durableFile/FilePart.js';
import { writeAll } from '../../../storage/durableFile/fileBytes.js';
import { freeableBytes, freeBuffer } from '../../../storage/durableFile/freeableBuffer.js';
import { tempDataFile } from '../../support/tempFolder.js';

/**
 * A handle whose writes take at most `room` bytes in all, as a filling disk does: a write
 * that meets the end takes what fits and counts it; the next fails with ENOSPC.
 */
const fillingDisk = (room: number) => {
  const written: number[] = [];
  const handle = {
    writev: async (chunks: Uint8Array[]) => {
      if (written.length >= room) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      let count = 0;
      for (const chunk of chunks) {
        for (const byte of chunk) {
          if (written.length >= room) return { bytesWritten: count, buffers: chunks };
          written.push(byte);
          count++;
        }
      }
      return { bytesWritten: count, buffers: chunks };
    },
  } as unknown as FileHandle;
  return { handle, written };
};

const parts = [Buffer.from('{"pets":['), Buffer.from('{"id":1}'), Buffer.from(']}')];

describe('writeAll', () => {
  it('Should write every byte, in order, when the disk takes them in several short counts', async () => {
    const { handle, written } = fillingDisk(Number.POSITIVE_INFINITY);
    let calls = 0;
    const writev = handle.writev.bind(handle);
    // Four bytes a call: each short count is followed by a write of the rest.
    handle.writev = (async (chunks: Uint8Array[]) => {
      calls++;
      const bytes = Buffer.concat(chunks).subarray(0, 4);
      return writev([bytes]);
    }) as FileHandle['writev'];
    await writeAll(handle, parts);
    expect(Buffer.from(written).toString()).toBe('{"pets":[{"id":1}]}');
    expect(calls).toBe(5);
  });

  it("Should fail with the disk's own reason (ENOSPC) when a short count is followed by a full disk", async () => {
    const { handle, written } = fillingDisk(12);
    await expect(writeAll(handle, parts)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(written).toHaveLength(12);
  });

  it('Should fail rather than write a short file when a part is freed while the write runs', async () => {
    // A real file: its writev takes a freed buffer as empty and says nothing.
    const file = tempDataFile();
    const handle = await fs.open(file, 'w');
    const last = freeableBytes(']}');
    // A deferred part that frees a later part as it writes: a bug in the part's owner.
    const freeing: DeferredPart = {
      byteLength: 8,
      async writeTo(whole) {
        freeBuffer(last);
        await whole.write(Buffer.from('{"id":1}'));
      },
    };
    const reading = { readOwnBytes: async () => Buffer.alloc(0), readJournalBytes: async () => Buffer.alloc(0) };
    try {
      await expect(writeAll(handle, [parts[0]!, freeing, last], reading)).rejects.toThrow(
        'wrote 17 of the 19 bytes its parts held as the write began',
      );
    } finally {
      await handle.close();
    }
    expect(await fs.readFile(file, 'utf8')).toBe('{"pets":[{"id":1}');
  });

  it('Should fail, saying how far it got, when the disk takes nothing more yet names no reason', async () => {
    const handle = { writev: async () => ({ bytesWritten: 0, buffers: [] }) } as unknown as FileHandle;
    await expect(writeAll(handle, parts)).rejects.toThrow('wrote 0 of 19 bytes');
  });
});
