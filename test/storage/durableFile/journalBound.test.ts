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
  it('Should wait until the journal outgrows a small document and 8 MiB', () => {
    expect(JOURNAL_MIN_BYTES).toBe(8 * MiB);
    expect(journalOf(1 * MiB, 8 * MiB).outgrown).toBe(false);
    expect(journalOf(1 * MiB, 8 * MiB + 1).outgrown).toBe(true);
  });

  it('Should write a mid-sized document whole once its journal outgrows it, as writing it costs once per its size of journal', () => {
    expect(journalOf(40 * MiB, 40 * MiB).outgrown).toBe(false);
    expect(journalOf(40 * MiB, 40 * MiB + 1).outgrown).toBe(true);
  });

  it('Should keep the document and twice its journal under 120 MiB, and no less than 8 MiB of journal, so a start after a crash reads little more than the document', () => {
    expect(START_BYTES).toBe(120 * MiB);
    expect(JOURNAL_BYTE_WEIGHT).toBe(2);
    // 64 MiB (about half a million animals beside 100,000 keys): 28 MiB.
    expect(journalOf(64 * MiB, 28 * MiB).outgrown).toBe(false);
    expect(journalOf(64 * MiB, 28 * MiB + 1).outgrown).toBe(true);
    // About a million animals and 100,000 keys: 10 MiB.
    expect(journalOf(100 * MiB, 10 * MiB).outgrown).toBe(false);
    expect(journalOf(100 * MiB, 10 * MiB + 1).outgrown).toBe(true);
    // From 104 MiB to 136 MiB: the least.
    expect(journalOf(110 * MiB, 8 * MiB).outgrown).toBe(false);
    expect(journalOf(110 * MiB, 8 * MiB + 1).outgrown).toBe(true);
    expect(journalOf(136 * MiB, 8 * MiB).outgrown).toBe(false);
    expect(journalOf(136 * MiB, 8 * MiB + 1).outgrown).toBe(true);
  });

  it('Should let the journal of a document past 120 MiB grow to half the excess, so its whole writes do not come every 8 MiB however large it grows', () => {
    // A start then reads under twice the document (each journal byte counted twice).
    expect(journalOf(200 * MiB, 40 * MiB).outgrown).toBe(false);
    expect(journalOf(200 * MiB, 40 * MiB + 1).outgrown).toBe(true);
    expect(journalOf(520 * MiB, 200 * MiB).outgrown).toBe(false);
    expect(journalOf(520 * MiB, 200 * MiB + 1).outgrown).toBe(true);
    expect(journalOf(520 * MiB, 200 * MiB + 1).bound).toBe(200 * MiB);
  });

  it('Should write a small document whole once its journal outgrows it, when told a lower minimum', () => {
    expect(journalOf(4096, 4096, 0).outgrown).toBe(false);
    expect(journalOf(4096, 4097, 0).outgrown).toBe(true);
    expect(journalOf(110 * MiB, 5 * MiB, 0).outgrown).toBe(false);
    expect(journalOf(110 * MiB, 5 * MiB + 1, 0).outgrown).toBe(true);
  });

  it('Should say the journal holds changes the document does not, whenever it is not empty', () => {
    expect(journalOf(1 * MiB, 0).pending).toBe(false);
    expect(journalOf(1 * MiB, 1).pending).toBe(true);
  });
});
