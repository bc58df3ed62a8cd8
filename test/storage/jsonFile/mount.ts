/** @module Mounts for the file storage's system tests (they run as root): bind mounts and small tmpfs disks, undone after each test. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';

const run = promisify(execFile);
const mounted: string[] = [];

afterEach(async () => {
  for (const target of mounted.splice(0).reverse()) await run('umount', ['-l', target]).catch(() => {});
});

/** Runs `mount …args`, failing loudly with what mount said (these tests need root, as CI has). */
const mount = async (args: string[], target: string): Promise<void> => {
  try {
    await run('mount', [...args, target]);
  } catch (error) {
    throw new Error(`This test needs to mount (as root): mount ${[...args, target].join(' ')} failed: ${(error as Error).message}`);
  }
  mounted.push(target);
};

/** Makes `target` show the folder `source`: the same files under a second path. */
export const bindMount = (source: string, target: string): Promise<void> => mount(['--bind', source], target);

/** Mounts a tmpfs of `kilobytes` at `target`: a disk small enough to fill in a test. */
export const smallDisk = (target: string, kilobytes: number): Promise<void> =>
  mount(['-t', 'tmpfs', '-o', `size=${kilobytes}k`, 'tmpfs'], target);

/** Remounts the disk at `target` read-only, or writable again. */
export const setReadOnly = async (target: string, readOnly: boolean): Promise<void> => {
  await run('mount', ['-o', `remount,${readOnly ? 'ro' : 'rw'}`, target]);
};

/** Appends zeros to a file until the disk is full. */
const fillDisk = (file: string) => {
  const block = Buffer.alloc(4096);
  const fd = fs.openSync(file, 'a');
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
};

/**
 * Fills the disk, and again once the file a write replaced is gone: a write answers before
 * it closes the replaced file, whose blocks are freed only then.
 */
export const fillDiskForGood = async (file: string) => {
  fillDisk(file);
  await new Promise((resolve) => setTimeout(resolve, 200));
  fillDisk(file);
};
