import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DurableDataFile, DurableTextFile, type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
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
  it('Should read its lines, cut a torn one, and keep their bytes in one buffer until the reader frees them', async () => {
    const changes = Array.from({ length: 2_000 }, (_, at) => JSON.stringify({ pets: [{ id: at + 1, name: `Pet ${at}` }] }));
    const { file, journal } = await journalWith(changes);
    await journal.close();
    const whole = fs.readFileSync(journalPath(file));
    const torn = '0123456789abcdef {"pets":[{"id":2001,"na';
    fs.appendFileSync(journalPath(file), torn);

    const { fs: recording, readInto } = recordingReads();
    const opened = await Journal.open(recording, file, file);
    // The bytes went through one buffer, kept (not made into strings) until the start replays them.
    expect(readInto).toHaveLength(1);
    expect(readInto[0]!.byteLength).toBe(whole.byteLength + torn.length);
    const read = await opened.read();
    expect(read).toHaveLength(changes.length);
    expect([...read]).toEqual(changes);
    expect(fs.readFileSync(journalPath(file))).toEqual(whole);
    // Freed by the reader once replayed: every view of it is empty now.
    read.free();
    expect(readInto[0]!.byteLength).toBe(0);
    await opened.close();
  });

  it('Should free what open read once an append makes it out of date, and read every line again', async () => {
    const { file, journal } = await journalWith(['{"a":1}']);
    await journal.close();
    const { fs: recording, readInto } = recordingReads();
    const opened = await Journal.open(recording, file, file);
    await opened.append('{"name":"Zoë"}');
    expect(readInto[0]!.byteLength).toBe(0);
    // The first read after appends reads the file again (what `open` read is out of date).
    const read = await opened.read();
    expect([...read]).toEqual(['{"a":1}', '{"name":"Zoë"}']);
    read.free();
    expect(readInto.every((bytes) => bytes.byteLength === 0)).toBe(true);
    await opened.close();
  });

  it("Should free a start's journal bytes once the data is read with its changes", async () => {
    const { file, journal } = await journalWith(['{"a":1}', '{"b":2}']);
    await journal.close();
    const { fs: recording, readInto } = recordingReads();
    const text = await DurableTextFile.take(file, { name: file, fs: recording, initial: () => [Buffer.from('[]')] });
    const format = {
      parse: async (_file: unknown, changes: Iterable<string>) => [...changes],
      serialize: () => [],
      encodeChange: (change: string) => change,
    };
    expect(await new DurableDataFile(text, format).read()).toEqual(['{"a":1}', '{"b":2}']);
    expect(readInto).toHaveLength(1);
    expect(readInto[0]!.byteLength).toBe(0);
    await text.release();
  });
});
