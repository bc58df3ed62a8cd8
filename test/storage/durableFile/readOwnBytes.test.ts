import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableTextFile, nodeFileSystem } from '../../../storage/durableFile/index.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** A durable file in a fresh folder, written once by this process. */
const takeWritten = async (text: string) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-own-bytes-'));
  folders.push(folder);
  const file = path.join(folder, 'data.txt');
  const durable = await DurableTextFile.take(file, { name: file, fs: nodeFileSystem, initial: () => [Buffer.from('first')] });
  await durable.write([Buffer.from(text)]);
  return { file, durable };
};

describe('A durable file gives back bytes of its own last write', () => {
  it('Should give the bytes asked for while the file is as this process wrote it', async () => {
    const { durable } = await takeWritten('0123456789abcdef');
    expect((await durable.readOwnBytes(4, 6))?.toString()).toBe('456789');
    await durable.write([Buffer.from('a newer text')]);
    expect((await durable.readOwnBytes(2, 5))?.toString()).toBe('newer');
    // Past the end: not its bytes.
    expect(await durable.readOwnBytes(8, 10)).toBeUndefined();
    await durable.release();
  });

  it('Should give nothing once someone edited the file, in place or by a rename', async () => {
    const inPlace = await takeWritten('0123456789abcdef');
    fs.writeFileSync(inPlace.file, '0123456789ABCDEF');
    expect(await inPlace.durable.readOwnBytes(0, 16)).toBeUndefined();
    await inPlace.durable.release();

    const renamed = await takeWritten('0123456789abcdef');
    fs.writeFileSync(`${renamed.file}.edit`, '0123456789abcdef');
    fs.renameSync(`${renamed.file}.edit`, renamed.file);
    expect(await renamed.durable.readOwnBytes(0, 16)).toBeUndefined();
    await renamed.durable.release();
  });

  it('Should read through one descriptor of its own, and hold none once released, even for a read after', async () => {
    const { file, durable } = await takeWritten('0123456789abcdef'.repeat(1_000));
    /** How many of this process's descriptors are open on the file. */
    const descriptors = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === fs.realpathSync(file);
        } catch {
          return false;
        }
      }).length;
    const locked = descriptors();
    for (let piece = 0; piece < 10; piece++) expect((await durable.readOwnBytes(piece * 1_000, 1_000))?.byteLength).toBe(1_000);
    expect(descriptors()).toBe(locked + 1);
    await durable.release();
    expect(await durable.readOwnBytes(0, 16)).toBeUndefined();
    expect(descriptors()).toBe(0);
  });
});
