import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DurableWriteError, journalPath, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { Journal } from '../../../storage/durableFile/Journal.js';
import { failingJournalRename, journalWith } from './journalFixtures.js';

/** What a start would read: the journal opened again. */
const reopened = async (file: string) => {
  const journal = await Journal.open(nodeFileSystem, file, file);
  const changes = [...(await journal.read())];
  await journal.close();
  return changes;
};

describe('A journal keeps only the lines appended after a whole write began', () => {
  it('Should keep the later lines, durably, and go on appending after them', async () => {
    const { file, journal } = await journalWith(['{"a":1}', '{"b":2}']);
    const mark = journal.mark;
    await journal.append('{"c":3}');
    await journal.append('{"d":4}');
    await journal.keepFrom(mark);
    expect([...(await journal.read())]).toEqual(['{"c":3}', '{"d":4}']);
    await journal.append('{"e":5}');
    expect(journal.size).toBe(fs.statSync(journalPath(file)).size);
    await journal.close();
    expect(await reopened(file)).toEqual(['{"c":3}', '{"d":4}', '{"e":5}']);
    // No new journal is left beside it.
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['animals.json.journal']);
  });

  it('Should empty the journal when nothing came after the mark, and do nothing once it was emptied since', async () => {
    const first = await journalWith(['{"a":1}']);
    await first.journal.keepFrom(first.journal.mark);
    expect(first.journal.size).toBe(0);
    await first.journal.close();

    const second = await journalWith(['{"a":1}']);
    const mark = second.journal.mark;
    await second.journal.clear();
    await second.journal.append('{"b":2}');
    await second.journal.keepFrom(mark);
    expect([...(await second.journal.read())]).toEqual(['{"b":2}']);
    await second.journal.close();
  });

  it('Should leave the journal whole, and no new journal beside it, when the new one cannot be put in place', async () => {
    const { file, journal } = await journalWith(['{"a":1}'], failingJournalRename);
    const mark = journal.mark;
    await journal.append('{"b":2}');
    await expect(journal.keepFrom(mark)).rejects.toThrow(DurableWriteError);
    await journal.append('{"c":3}');
    expect([...(await journal.read())]).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    await journal.close();
    expect(await reopened(file)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['animals.json.journal']);
  });
});
