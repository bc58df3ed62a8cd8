import type { StatsFs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../storage/durableFile/index.js';
import { checkRoom } from '../../../storage/durableFile/probeDisk.js';

const MIB = 2 ** 20;

/** A file system whose statfs answers with `blocks` of 4 KiB, `free` of them free (as root and not). */
const reporting = (blocks: number, free: number) =>
  ({ statfs: async () => ({ bsize: 4096, blocks, bfree: free, bavail: free }) as unknown as StatsFs }) as unknown as FileSystem;

describe('checkRoom', () => {
  it('Should let a write through when the room holds its bytes and an eighth more', async () => {
    await expect(checkRoom(reporting(10_000, (9 * MIB) / 4096), '/data', 8 * MIB)).resolves.toBeUndefined();
  });

  it('Should refuse a write that fits but leaves less than an eighth of it, saying how much is free and needed', async () => {
    await expect(checkRoom(reporting(10_000, (8.5 * MIB) / 4096), '/data', 8 * MIB)).rejects.toMatchObject({
      code: 'ENOSPC',
      message: 'no space left on device: 8.5 MiB free, a write needs 9.0 MiB',
    });
  });

  it('Should let a write through where the file system cannot say: statfs fails, or reports no size at all', async () => {
    const failing = { statfs: async () => Promise.reject(new Error('ENOSYS: function not implemented, statfs')) } as unknown as FileSystem;
    await expect(checkRoom(failing, '/data', 8 * MIB)).resolves.toBeUndefined();
    await expect(checkRoom(reporting(0, 0), '/data', 8 * MIB)).resolves.toBeUndefined();
  });
});
