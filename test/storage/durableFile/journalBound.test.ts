import { describe, expect, it } from 'vitest';
import {
  DurableDataFile,
  type DurableTextFile,
  JOURNAL_BYTE_WEIGHT,
  JOURNAL_MIN_BYTES,
  START_BYTES,
} from '../../../storage/durableFile/index.js';

const MiB = 1024 * 1024;

/** The journal's state for a file and a journal of these sizes. */
const journalOf = (file: number, journal: number, journalMinBytes?: number) => {
  const text = { sizes: { file, journal, dirty: false } } as unknown as DurableTextFile;
  const format = { parse: () => ({}), serialize: () => [], encodeChange: () => '' };
  return new DurableDataFile(text, format, journalMinBytes).journal;
};

describe('when the journal is written into the document', () => {
  it('Should wait until the journal outgrows a small document and 16 MiB', () => {
    expect(JOURNAL_MIN_BYTES).toBe(16 * MiB);
    expect(journalOf(1 * MiB, 16 * MiB).outgrown).toBe(false);
    expect(journalOf(1 * MiB, 16 * MiB + 1).outgrown).toBe(true);
  });

  it('Should write a mid-sized document whole once its journal outgrows it, as writing it costs once per its size of journal', () => {
    expect(journalOf(40 * MiB, 40 * MiB).outgrown).toBe(false);
    expect(journalOf(40 * MiB, 40 * MiB + 1).outgrown).toBe(true);
  });

  it('Should keep the document and twice its journal under 128 MiB, and no less than 16 MiB of journal, so a start after a crash reads little more than the document', () => {
    expect(START_BYTES).toBe(128 * MiB);
    expect(JOURNAL_BYTE_WEIGHT).toBe(2);
    // 64 MiB (about half a million animals beside 100,000 keys): 32 MiB, where it was 64.
    expect(journalOf(64 * MiB, 32 * MiB).outgrown).toBe(false);
    expect(journalOf(64 * MiB, 32 * MiB + 1).outgrown).toBe(true);
    expect(journalOf(80 * MiB, 24 * MiB).outgrown).toBe(false);
    expect(journalOf(80 * MiB, 24 * MiB + 1).outgrown).toBe(true);
    // A million animals: the least.
    expect(journalOf(100 * MiB, 16 * MiB).outgrown).toBe(false);
    expect(journalOf(100 * MiB, 16 * MiB + 1).outgrown).toBe(true);
    expect(journalOf(200 * MiB, 16 * MiB).outgrown).toBe(false);
    expect(journalOf(200 * MiB, 16 * MiB + 1).outgrown).toBe(true);
  });

  it('Should write a small document whole once its journal outgrows it, when told a lower minimum', () => {
    expect(journalOf(4096, 4096, 0).outgrown).toBe(false);
    expect(journalOf(4096, 4097, 0).outgrown).toBe(true);
    expect(journalOf(100 * MiB, 14 * MiB, 0).outgrown).toBe(false);
    expect(journalOf(100 * MiB, 14 * MiB + 1, 0).outgrown).toBe(true);
  });

  it('Should say the journal holds changes the document does not, whenever it is not empty', () => {
    expect(journalOf(1 * MiB, 0).pending).toBe(false);
    expect(journalOf(1 * MiB, 1).pending).toBe(true);
  });
});
