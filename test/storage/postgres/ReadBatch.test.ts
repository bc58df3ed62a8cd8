import { describe, expect, it } from 'vitest';
import { ReadBatch } from '../../../storage/postgres/ReadBatch.js';

/** A statement that answers when the test says so. */
const held = <T>() => {
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
    );
    const one = batch.read(1);
    const failed = Promise.allSettled([batch.read(2), batch.read(3)]);
    first.release();
    expect(await one).toBe(1);
    expect((await failed).map((settled) => settled.status)).toEqual(['rejected', 'rejected']);
    expect(await batch.read(4)).toBe(4);
  });
});
