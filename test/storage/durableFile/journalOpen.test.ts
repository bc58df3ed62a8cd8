import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DurableDataFile, DurableTextFile, type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { Journal, journalPath } from '../../../storage/durableFile/Journal.js';
import { JournalChanges } from '../../../storage/durableFile/JournalChanges.js';
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

  it('Should lend its first changes to another thread as a copy, keep them all readable here, and give the rest after them', async () => {
    const changes = ['{"a":1}', '{"name":"Zoë"}', '{"c":3}', '{"d":4}'];
    const { file, journal } = await journalWith(changes);
    await journal.close();
    const opened = await Journal.open(nodeFileSystem, file, file);
    const read = await opened.read();
    await opened.close();
    const lineBytes = changes.map((change) => 17 + Buffer.byteLength(change) + 1);
    expect(read.countWithin(0)).toBe(0);
    expect(read.countWithin(lineBytes[0]! + lineBytes[1]!)).toBe(2);
    expect(read.countWithin(lineBytes[0]! + lineBytes[1]! - 1)).toBe(1);
    expect(read.countWithin(Number.MAX_SAFE_INTEGER)).toBe(4);

    const lent = read.lend(2)!;
    expect(lent.transfer).toEqual([lent.changes.bytes.buffer]);
    // A copy of the first two lines only: moving it leaves these bytes as they are.
    const borrowed = JournalChanges.borrowed(structuredClone(lent.changes, { transfer: lent.transfer }));
    expect([...borrowed]).toEqual(changes.slice(0, 2));
    expect([...read]).toEqual(changes);
    const after = read.after(2);
    expect(after).toHaveLength(2);
    expect([...after]).toEqual(changes.slice(2));
    expect([...read.after(4)]).toEqual([]);
    expect(read.lend(0)).toBeUndefined();

    // All of them move: they are then read again from the journal, and not here.
    const all = read.lend()!;
    expect([...JournalChanges.borrowed(structuredClone(all.changes, { transfer: all.transfer }))]).toEqual(changes);
    expect(() => [...read]).toThrow(/lent to another thread/);
    const again = await read.readable();
    expect(again === read).toBe(false);
    expect([...again]).toEqual(changes);
    fs.rmSync(journalPath(file));
  });
});
