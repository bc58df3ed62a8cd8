import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileLockedError } from '../../../storage/jsonFile/DataFileError.js';
import { lockDataFile } from '../../../storage/jsonFile/lockDataFile.js';
import { tempFolder } from '../../support/tempFolder.js';

/** Leaves a socket file behind the way a crashed owner does: listen in a child, then kill -9 it. */
const leaveStaleSocket = async (socketPath: string) => {
  const child = spawn(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('ready'))`,
  ]);
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  expect(fs.existsSync(socketPath)).toBe(true);
};

describe('lockDataFile', () => {
  for (const platform of ['linux', 'darwin'] as const) {
    it(`Should give a file one owner at a time and free it on release (${platform} kind of lock)`, async () => {
      const file = path.join(tempFolder(), 'animals.json');
      const lock = await lockDataFile(file, file, platform);
      const error = await lockDataFile(file, file, platform).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(DataFileLockedError);
      expect((error as DataFileLockedError).owner).toMatchObject({ pid: process.pid });
      await lock.release();
      const again = await lockDataFile(file, file, platform);
      await again.release();
    });
  }

  it('Should take over a socket file left by an owner that was killed (socket-file kind of lock)', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    await leaveStaleSocket(`${file}.lock`);
    const lock = await lockDataFile(file, file, 'darwin');
    await expect(lockDataFile(file, file, 'darwin')).rejects.toThrow(DataFileLockedError);
    await lock.release();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
