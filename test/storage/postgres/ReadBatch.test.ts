import { describe, expect, it, vi } from 'vitest';
import { ReadBatch } from '../../../storage/postgres/ReadBatch.js';

/** A statement that answers when the test says so. */
const held = () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release: () => release() };
};

describe('ReadBatch', () => {
  it('Should run reads alone while slots are free, then send the reads queued meanwhile together, each answered with its own result', async () => {
    const statements: number[][] = [];
    const first = held();
    const batch = new ReadBatch<number, string>(
      async (item) => {
        statements.push([item]);
        if (item === 1) await first.gate;
        return `one ${item}`;
      },
      async (items) => {
        statements.push(items);
        return items.map((item) => `many ${item}`);
      },
      1,
      { milliseconds: 60_000, error: () => new Error('late') },
    );
    const answers = Promise.all([1, 2, 3, 4].map((item) => batch.read(item)));
    first.release();
    expect(await answers).toEqual(['one 1', 'many 2', 'many 3', 'many 4']);
    expect(statements).toEqual([[1], [2, 3, 4]]);
  });

  it('Should fail only the reads of a failed statement, and go on with the next', async () => {
    const first = held();
    const batch = new ReadBatch<number, number>(
      async (item) => {
        if (item === 1) await first.gate;
        return item;
      },
      async (items) => {
        if (items.includes(2)) throw new Error('the database went away');
        return items;
      },
      1,
      { milliseconds: 60_000, error: () => new Error('late') },
    );
    const one = batch.read(1);
    const failed = Promise.allSettled([batch.read(2), batch.read(3)]);
    first.release();
    expect(await one).toBe(1);
    expect((await failed).map((settled) => settled.status)).toEqual(['rejected', 'rejected']);
    expect(await batch.read(4)).toBe(4);
  });

  it('Should fail a read that could not be sent in time, and leave the others to their statement', async () => {
    vi.useFakeTimers();
    try {
      const first = held();
      const batch = new ReadBatch<number, number>(
        async (item) => {
          if (item === 1) await first.gate;
          return item;
        },
        async (items) => items,
        1,
        { milliseconds: 100, error: () => new Error('not sent in time') },
      );
      const one = batch.read(1);
      const late = batch.read(2);
      late.catch(() => {});
      await vi.advanceTimersByTimeAsync(100);
      const third = batch.read(3);
      await expect(late).rejects.toThrow('not sent in time');
      first.release();
      expect(await Promise.all([one, third])).toEqual([1, 3]);
    } finally {
      vi.useRealTimers();
    }
  });
});
