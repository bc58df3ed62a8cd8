import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { Journal, journalPath } from '../../../storage/durableFile/Journal.js';
import { journalWith } from './journalFixtures.js';

/** Node's file functions, recording every buffer a journal's handle reads into. */
const recordingReads = (): { fs: FileSystem; readInto: Uint8Array[] } => {
  const readInto: Uint8Array[] = [];
  const open: FileSystem['open'] = async (...args) => {
    const handle = await nodeFileSystem.open(...args);
    if (!String(args[0]).endsWith('.journal')) return handle;
    const read = handle.read.bind(handle) as (buffer: Uint8Array, ...rest: unknown[]) => ReturnType<typeof handle.read>;
    return Object.assign(handle, {
      read: (buffer: Uint8Array, ...rest: unknown[]) => {
        readInto.push(buffer);
        return read(buffer, ...rest);
      },
    });
  };
  return { fs: { ...nodeFileSystem, open }, readInto };
};

describe('Opening a journal after a crash', () => {
  it('Should read its lines, cut a torn one, and give back the bytes it read them through at once', async () => {
    const changes = Array.from({ length: 2_000 }, (_, at) => JSON.stringify({ pets: [{ id: at + 1, name: `Pet ${at}` }] }));
    const { file, journal } = await journalWith(changes);
    await journal.close();
    const whole = fs.readFileSync(journalPath(file));
    fs.appendFileSync(journalPath(file), '0123456789abcdef {"pets":[{"id":2001,"na');

    const { fs: recording, readInto } = recordingReads();
    const opened = await Journal.open(recording, file, file);
    // The bytes went through one buffer, and it is freed: every view of it is empty now.
    expect(readInto).toHaveLength(1);
    expect(readInto[0]!.byteLength).toBe(0);
    expect(await opened.read()).toEqual(changes);
    expect(fs.readFileSync(journalPath(file))).toEqual(whole);
    await opened.close();
  });

  it('Should free what a later read went through too, and still give every line', async () => {
    const { fs: recording, readInto } = recordingReads();
    const { journal } = await journalWith([], recording);
    const changes = ['{"a":1}', '{"name":"Zoë"}'];
    for (const change of changes) await journal.append(change);
    // The first read after appends reads the file again (what `open` read is out of date).
    expect(await journal.read()).toEqual(changes);
    expect(readInto.length).toBeGreaterThan(0);
    expect(readInto.every((bytes) => bytes.byteLength === 0)).toBe(true);
    await journal.close();
  });
});
