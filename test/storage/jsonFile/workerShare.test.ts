import { describe, expect, it } from 'vitest';
import { checksumOf, JournalChanges } from '../../../storage/durableFile/JournalChanges.js';
import { workerShareOf } from '../../../storage/jsonFile/read/streamPetFile.js';

const MB = 1_000_000;

/** A journal's changes read from `megabytes` MB of whole lines of about 100 kB. */
const journalOf = (megabytes: number): JournalChanges => {
  const change = 'x'.repeat(100_000 - 18);
  const line = `${checksumOf(change)} ${change}\n`;
  return JournalChanges.read(Buffer.from(line.repeat(megabytes * 10)));
};

describe("Sharing a journal's changes between the keys' worker and this thread", () => {
  const journal = journalOf(30);

  it('Should give the worker them all beside a million animals, where it is done with the keys long before the animals are parsed', () => {
    expect(workerShareOf(journal, 82 * MB, 23 * MB)).toBe(journal.length);
    expect(workerShareOf(journalOf(16), 82 * MB, 23 * MB)).toBe(160);
  });

  it('Should give this thread most of them beside fewer animals, where it would wait for the worker', () => {
    const few = workerShareOf(journal, 10 * MB, 23 * MB);
    const half = workerShareOf(journal, 44 * MB, 23 * MB);
    expect(few).toBeLessThan(journal.length / 4);
    expect(half).toBeGreaterThan(few);
    expect(half).toBeLessThan(journal.length);
  });

  it('Should give the worker fewer the more keys it reads, and none when its own start would cost more than they save', () => {
    expect(workerShareOf(journal, 44 * MB, 30 * MB)).toBeLessThan(workerShareOf(journal, 44 * MB, 10 * MB));
    expect(workerShareOf(journalOf(3), 1 * MB, 0)).toBe(0);
    expect(workerShareOf(journal, 1 * MB, 23 * MB)).toBe(0);
  });
});
