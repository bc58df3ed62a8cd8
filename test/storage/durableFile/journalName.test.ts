import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableWriteError, journalPath } from '../../../storage/durableFile/index.js';
import { JournalChanges } from '../../../storage/durableFile/JournalChanges.js';
import { failingJournalRename, journalWith } from './journalFixtures.js';

/** The changes a start would read under the journal's name, or `undefined` when there is no file there. */
const underName = (file: string): string[] | undefined =>
  fs.existsSync(journalPath(file)) ? [...JournalChanges.read(fs.readFileSync(journalPath(file)))] : undefined;

describe('A journal whose name someone took away while it was in use', () => {
  it('Should write its lines again under its name when the file was removed, and go on appending there', async () => {
    const { file, journal } = await journalWith(['{"a":1}', '{"b":2}']);
    fs.unlinkSync(journalPath(file));
    expect(await journal.checkName()).toBe(true);
    expect(underName(file)).toEqual(['{"a":1}', '{"b":2}']);
    await journal.append('{"c":3}');
    expect(underName(file)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    // Nothing more to do while the name leads to its file.
    expect(await journal.checkName()).toBe(false);
    await journal.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(['animals.json.journal']);
  });

  it('Should take its name back from a file moved or copied over it, and leave a file moved away as it is', async () => {
    const { file, journal } = await journalWith(['{"a":1}']);
    const elsewhere = path.join(path.dirname(file), 'moved-away');
    fs.renameSync(journalPath(file), elsewhere);
    expect(await journal.checkName()).toBe(true);
    expect(underName(file)).toEqual(['{"a":1}']);
    expect([...JournalChanges.read(fs.readFileSync(elsewhere))]).toEqual(['{"a":1}']);

    const other = path.join(path.dirname(file), 'other');
    fs.writeFileSync(other, 'not a journal\n');
    fs.renameSync(other, journalPath(file));
    expect(await journal.checkName()).toBe(true);
    await journal.append('{"b":2}');
    expect(underName(file)).toEqual(['{"a":1}', '{"b":2}']);
    await journal.close();
  });

  it('Should read back the bytes of lines appended before, where the copy put them', async () => {
    const { file, journal } = await journalWith(['{"a":1}']);
    const spot = await journal.append('{"b":22}');
    fs.unlinkSync(journalPath(file));
    await journal.checkName();
    const bytes = await journal.readBytes(spot.generation, spot.offset, spot.length);
    expect(bytes?.toString()).toBe('{"b":22}');
    await journal.close();
  });

  it('Should let an empty journal go, so the next append makes a new one holding only its line', async () => {
    const { file, journal } = await journalWith(['{"a":1}']);
    await journal.clear();
    fs.unlinkSync(journalPath(file));
    expect(await journal.checkName()).toBe(false);
    expect(underName(file)).toBeUndefined();
    await journal.append('{"b":2}');
    expect(underName(file)).toEqual(['{"b":2}']);
    await journal.close();
  });

  it('Should be dirty when its lines cannot be written again, until cleared: then a new, empty journal has the name', async () => {
    const { file, journal } = await journalWith(['{"a":1}'], failingJournalRename);
    fs.unlinkSync(journalPath(file));
    const failure = await journal.checkName().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DurableWriteError);
    expect((failure as DurableWriteError).code).toBe('EIO');
    expect(journal.dirty).toBe(true);
    // The owner writes its file whole, every change in it, then clears the journal.
    await journal.clear();
    expect(journal.dirty).toBe(false);
    expect(fs.readFileSync(journalPath(file), 'utf8')).toBe('');
    await journal.append('{"b":2}');
    expect(underName(file)).toEqual(['{"b":2}']);
    await journal.close();
  });
});
